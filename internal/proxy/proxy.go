package proxy

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/secrets"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
)

// Mode says where responses come from.
type Mode int

const (
	// Replay (the zero Mode) serves Config.Exchanges and never touches the network.
	Replay Mode = iota
	// Record forwards every request to Config.Upstream.
	Record
)

// Config configures one proxy, started per scenario run.
type Config struct {
	Mode Mode // zero: Replay
	// Dialect names an entry of the dialect table (internal/wire/dialect).
	Dialect string
	// Upstream (Record) is the model API base URL; a request to
	// URL()+"/responses" goes to Upstream+"/responses". Required in Record.
	Upstream string
	// Key (Record) is the real API key, sent upstream in the dialect's key
	// header (dialect.Dialect.SetKey). It is never kept in an exchange, a report or an error. "": none sent.
	Key string
	// Exchanges (Replay) are the recorded exchanges, as Decompose returns
	// them (normalized), in call order: call N is Exchanges[N-1].
	Exchanges []httplog.Exchange
	// Normalize turns live values into tokens. The proxy applies it to
	// every JSON payload it keeps (request bodies, header sets as a JSON
	// object of strings, SSE event data, response bodies: any JSON value,
	// never a payload that is not JSON, such as "[DONE]") in both modes, and
	// to each live request before matching it in Replay; in Record it runs
	// after the call, off the streaming path. An error is reported (Replay:
	// the request is refused). nil: payloads kept as sent.
	Normalize func([]byte) ([]byte, error)
	// Numbering (Replay) lets requests that race match in either order
	// although each numbered its own new values in the order they came.
	// nil: a request matches by its whole normalized identity.
	Numbering *Numbering
	// Expand turns tokens back into live values in every payload served
	// in Replay (event data, bodies, override bodies). nil: served as recorded.
	Expand func([]byte) []byte
	// Ignore lists request parts that are not part of a request's identity:
	// JSON pointers into the body ("/prompt_cache_key", "/metadata/user_id")
	// and "header:NAME". nil: the whole normalized request is its identity.
	Ignore []string
	// Overrides replace exchanges by call number (see the package doc). nil: none.
	Overrides *Overrides
	// OnHang is called (once per call, on its own goroutine) when a
	// hangAfter override has sent its events and the stream now stalls:
	// "the model is streaming". sent is the data of the stream's events
	// the agent got, as it got them (nil for a non-streamed answer, which
	// the agent cannot read before its end). nil: nobody is told.
	OnHang func(call int, sent [][]byte)
	// RequestHeaders and ResponseHeaders name headers kept with each
	// exchange besides DefaultRequestHeaders / DefaultResponseHeaders.
	// Secret headers (authorization, x-api-key, …) are never kept.
	RequestHeaders, ResponseHeaders []string
	// MaxRequestBytes bounds the body of a request the agent sends (0:
	// 32 MiB); a larger one is refused (413) and fails the run.
	MaxRequestBytes int64
	// MaxRunRequestBytes bounds the request bodies of one run in all (0:
	// 128 MiB). The proxy keeps every body until the run ends, so a
	// request past it is refused (413) and fails the run.
	MaxRunRequestBytes int64
	// MaxEvents and MaxResponseBytes bound one upstream answer (Record):
	// its SSE events (0: 100,000) and its bytes once decoded (0: 64 MiB; a
	// gzip bomb is counted as it unpacks). An answer past either is cut,
	// the agent sees a broken connection, and the recording fails.
	MaxEvents        int
	MaxResponseBytes int64
	// MaxCalls bounds the model requests of one run (0: DefaultMaxCalls).
	// A request past it is answered 400 at once, never forwarded nor
	// matched nor kept, and fails the run (Report.Refused, ErrTooManyCalls):
	// an agent that floods its model neither spends the key nor grows the
	// log without end.
	MaxCalls int
	// Client (Record) sends requests upstream. nil: a client with no
	// timeout (streams are long) that follows no redirects.
	Client *http.Client
	// NewNonce returns the path nonce of the base URL. nil: 16 random bytes, hex.
	NewNonce func() string
}

// Proxy is a running proxy. Its methods are safe for concurrent use.
type Proxy struct {
	cfg      Config
	dialect  *dialect.Dialect
	ignore   ignoreRules
	reqHdr   map[string]bool
	respHdr  map[string]bool
	nonce    string
	secret   *secrets.Set // the real key and its disguises (Record)
	ln       net.Listener
	srv      *http.Server
	done     chan struct{} // closed by Close: hung streams end
	handlers sync.WaitGroup

	mu         sync.Mutex
	closed     bool
	requests   int                 // requests received, a refused one included
	refused    int                 // requests past MaxCalls
	calls      int                 // requests received
	bodyBytes  int64               // request bodies read, in all
	kept       []*httplog.Exchange // Record: by arrival; Replay: by the recorded call served
	extra      []*httplog.Exchange // Replay: drifted requests, by arrival
	drifts     []Drift
	moreDrifts int // drifts past MaxDrifts
	errs       []string
	consumed   []bool           // Replay: by recorded call - 1
	groups     map[string][]int // recorded calls - 1 by fingerprint (masked: see Numbering), in call order
	next       map[string]int   // the group's first unconsumed element
	exact      []string         // recorded call - 1 → its fingerprint unmasked (with Numbering)
	served     int
}

// Start listens on 127.0.0.1 (a free port) and serves until Close or until
// ctx ends.
func Start(ctx context.Context, cfg Config) (*Proxy, error) {
	d, err := dialect.Lookup(cfg.Dialect)
	if err != nil {
		return nil, fmt.Errorf("proxy: %w", err)
	}
	if cfg.Mode == Record && cfg.Upstream == "" {
		return nil, errors.New("proxy: record needs an upstream URL")
	}
	p := &Proxy{cfg: cfg, dialect: d, done: make(chan struct{}), secret: secrets.New(map[string]string{"key": cfg.Key}, nil)}
	if p.ignore, err = parseIgnore(cfg.Ignore); err != nil {
		return nil, err
	}
	if err := cfg.Overrides.check(cfg.Mode, len(cfg.Exchanges)); err != nil {
		return nil, err
	}
	p.reqHdr = headerSet(DefaultRequestHeaders, cfg.RequestHeaders)
	p.respHdr = headerSet(DefaultResponseHeaders, cfg.ResponseHeaders)
	if cfg.Mode == Replay {
		if err := p.index(); err != nil {
			return nil, err
		}
	}
	if p.cfg.Client == nil {
		p.cfg.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	p.nonce = newNonce()
	if cfg.NewNonce != nil {
		p.nonce = cfg.NewNonce()
	}
	if p.ln, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
		return nil, fmt.Errorf("proxy: listen: %w", err)
	}
	p.srv = &http.Server{Handler: p, BaseContext: func(net.Listener) context.Context { return ctx }}
	go p.srv.Serve(p.ln)
	go func() {
		select {
		case <-ctx.Done():
			p.Close()
		case <-p.done:
		}
	}()
	return p, nil
}

func newNonce() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

func headerSet(lists ...[]string) map[string]bool {
	s := map[string]bool{}
	for _, l := range lists {
		for _, h := range l {
			if h = strings.ToLower(h); !secretHeaders[h] {
				s[h] = true
			}
		}
	}
	return s
}

// URL is the base URL the agent is given ({{model.url}}): a per-run nonce
// below 127.0.0.1:PORT, no trailing slash.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() + "/" + p.nonce }

// Key is the placeholder key the agent is given ({{model.key}}); the proxy
// neither checks nor forwards it.
func (p *Proxy) Key() string { return "acpsnap-placeholder-" + p.nonce }

// Calls is how many model calls the proxy has received so far (a HEAD
// probe is none): the next one is call Calls()+1.
func (p *Proxy) Calls() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.calls
}

// Close stops the server, ends hung streams and waits for the handlers
// in flight; Report is final after it.
func (p *Proxy) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.done)
	p.mu.Unlock()
	err := p.srv.Close()
	p.handlers.Wait()
	return err
}

// ServeHTTP routes a request below the nonce to record or replay (a HEAD
// is answered 200 at once); any other path is 404.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		http.Error(w, "acpsnap: proxy closed", http.StatusServiceUnavailable)
		return
	}
	p.handlers.Add(1) // under mu, so never concurrent with Close's Wait
	p.mu.Unlock()
	defer p.handlers.Done()
	prefix := "/" + p.nonce
	rest, ok := strings.CutPrefix(r.URL.Path, prefix)
	if !ok || rest != "" && rest[0] != '/' {
		http.NotFound(w, r)
		return
	}
	if r.Method == http.MethodHead {
		// A reachability probe (Claude Code sends HEAD of its base URL at
		// session start and ignores the answer): no model call, so it is
		// answered here, in both modes, and neither counted nor kept.
		w.WriteHeader(http.StatusOK)
		return
	}
	if rest == "" {
		rest = "/"
	}
	if p.overCap() {
		p.ownAnswer(w, http.StatusBadRequest, "too many calls",
			fmt.Sprintf("more than %d model calls in one scenario (the cap): refused, not forwarded", p.cfg.maxCalls()))
		return
	}
	if p.cfg.Mode == Record {
		if err := p.endpoint(r, rest); err != nil {
			p.fail("%v", err)
			p.ownAnswer(w, http.StatusNotFound, "endpoint", err.Error())
			return
		}
	}
	if q := p.dialect.WithoutKey(r.URL.RawQuery); q != "" {
		rest += "?" + q // a key in the query is the key header's: never kept or forwarded
	}
	p.mu.Lock()
	p.calls++
	arrival := p.calls
	p.mu.Unlock()
	if p.cfg.Mode == Record {
		p.record(w, r, rest, arrival)
		return
	}
	p.replay(w, r, rest, arrival)
}

// overCap counts a request and reports whether it is past Config.MaxCalls
// (and counts it as refused then).
func (p *Proxy) overCap() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.requests++
	if p.requests <= p.cfg.maxCalls() {
		return false
	}
	p.refused++
	return true
}

func (p *Proxy) fail(format string, args ...any) {
	p.mu.Lock()
	p.errs = append(p.errs, fmt.Sprintf(format, args...))
	p.mu.Unlock()
}
