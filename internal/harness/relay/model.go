package relay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/acpsnap/acpsnap/internal/harness/harvest"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/normalize"
	"github.com/acpsnap/acpsnap/internal/proxy"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// ModelConfig is the HTTP model of one run (the harness's Model, and what
// the run adds).
type ModelConfig struct {
	Dialect       string   // a name of the dialect table (internal/wire/dialect)
	Upstream, Key string   // the live model (Record only); Upstream "": the dialect's public endpoint
	Ignore        []string // request parts that are not part of a request's identity
	// Scrub is applied to every normalized payload; nil: nothing.
	Scrub func([]byte) []byte
	// Pins are the corpus's pins: the committed log's placeholders are
	// read through them, and the composed log's values kept in them (an
	// overlay the caller writes or drops); nil: nothing is pinned.
	Pins     *httplog.Pins
	Record   bool           // relay to Upstream; false: serve Source.Exchanges
	Roots    *harvest.Roots // the run's paths, the live side's tokens
	MaxCalls int            // the run's cap on model calls (proxy.Config.MaxCalls)
	// Dial connects to Upstream (Record); nil: net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Source is what a replay serves, read from the scenario's files: the
// exchanges of its committed session log and its overrides.
type Source struct {
	Exchanges []httplog.Exchange // nil: not recorded yet, every request drifts
	Overrides *proxy.Overrides   // replay.override.json; nil: none
}

// LoadSource reads the replay source of the scenario s in dir with pins:
// in Record, only the overrides. Its errors are about the scenario's own
// files.
func LoadSource(s *scenario.Scenario, dir string, pins *httplog.Pins, record bool) (Source, error) {
	var src Source
	if !record {
		xs, err := fixtureExchanges(s, pins)
		if err != nil {
			return Source{}, err
		}
		src.Exchanges = xs
	}
	if f := filepath.Join(dir, scenario.OverrideFile); exists(f) {
		ov, err := proxy.LoadOverrides(f)
		if err != nil {
			return Source{}, err
		}
		src.Overrides = ov
	}
	return src, nil
}

// fixtureExchanges decomposes the committed session log: the replay source.
// The scenario read it already, unless its fixture is incomplete (no
// stdout.expected.jsonl): then the log is read alone.
func fixtureExchanges(s *scenario.Scenario, pins *httplog.Pins) ([]httplog.Exchange, error) {
	if s.Fixture != nil {
		_, xs, err := httplog.Decompose(s.Fixture.Logs[0], s.Fixture.LogPaths[0], pins)
		return xs, err
	}
	path := filepath.Join(s.Dir, scenario.SessionFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // not recorded yet: every request is a drift
	}
	if err != nil {
		return nil, err
	}
	_, xs, err := httplog.Decompose(b, path, pins)
	return xs, err
}

// Model is the model proxy of one run and the live side's one token
// context: every payload of the run, then (in package check) its stdout,
// numbers its volatile values in this one context, so a tool-call id the
// model gave and the agent repeats on ACP is one token everywhere. Its
// methods are safe for concurrent use.
type Model struct {
	cfg   ModelConfig
	proxy *proxy.Proxy
	hung  chan struct{} // closed when a hangAfter override stalls: the model is streaming
	sent  [][]byte      // the data of the events the agent got before that stall; set before hung closes
	once  sync.Once
	paths pathTokens

	mu  sync.Mutex // guards tok: the proxy's handlers run concurrently
	tok *normalize.Context
}

// StartModel starts the proxy of the run on 127.0.0.1: in replay it serves
// src. Its errors are the machine's (the proxy could not start).
func StartModel(ctx context.Context, cfg ModelConfig, src Source) (*Model, error) {
	m := &Model{cfg: cfg, hung: make(chan struct{}), paths: newPathTokens(cfg.Roots), tok: liveContext(cfg.Roots)}
	pc := proxy.Config{Dialect: cfg.Dialect, Expand: m.expand, Ignore: cfg.Ignore, Overrides: src.Overrides, MaxCalls: cfg.MaxCalls,
		OnHang: func(_ int, sent [][]byte) { m.once.Do(func() { m.sent = sent; close(m.hung) }) }}
	if cfg.Record {
		// Payloads are kept as sent and normalized when the log is
		// composed, in call order: the order replay numbers them in.
		pc.Mode, pc.Upstream, pc.Key = proxy.Record, cfg.Upstream, cfg.Key
		if cfg.Dial != nil {
			t := http.DefaultTransport.(*http.Transport).Clone()
			t.DialContext = cfg.Dial
			pc.Client = &http.Client{Transport: t, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		}
		if d, err := dialect.Lookup(cfg.Dialect); err == nil && pc.Upstream == "" {
			pc.Upstream = d.Upstream // an unknown dialect fails in proxy.Start
		}
		if cfg.Dial != nil {
			t := http.DefaultTransport.(*http.Transport).Clone()
			t.DialContext, t.Proxy = cfg.Dial, nil
			pc.Client = &http.Client{Transport: t, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		}
	} else {
		pc.Exchanges, pc.Normalize = src.Exchanges, m.normalizeLive
		pc.Numbering = &proxy.Numbering{Mask: maskNumbers, Renumber: m.renumber}
	}
	p, err := proxy.Start(ctx, pc)
	if err != nil {
		return nil, fmt.Errorf("start the model proxy: %w", err)
	}
	m.proxy = p
	return m, nil
}

// URL is the proxy's base URL, {{model.url}} of the agent's templates.
func (m *Model) URL() string { return m.proxy.URL() }

// Key is the placeholder key the agent is given, {{model.key}}.
func (m *Model) Key() string { return m.proxy.Key() }

// Hung is closed once a hangAfter override stalled a stream: the model is
// streaming, the cancel point of an HTTP-model agent.
func (m *Model) Hung() <-chan struct{} { return m.hung }

// Sent is the data of the stream events the agent got before the stall
// (SSE event data); read it once Hung is closed.
func (m *Model) Sent() [][]byte { return m.sent }

// Dialect is the model's dialect name.
func (m *Model) Dialect() string { return m.cfg.Dialect }

// Calls is how many model calls the agent has made so far.
func (m *Model) Calls() int { return m.proxy.Calls() }

// Close ends the proxy; Compose closes it too.
func (m *Model) Close() { m.proxy.Close() }

// Identify numbers a session id the moment session/new answers, before
// any payload that carries it.
func (m *Model) Identify(session string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tok.Identify("session", session)
}

// liveContext is the live side's token context of a run: its cwd, home
// and root in every spelling.
func liveContext(rts *harvest.Roots) *normalize.Context {
	c := normalize.NewContext(rts.Cwd, normalize.Aliases(rts.Cwd)...)
	c.AddPath("home", rts.Home, normalize.Aliases(rts.Home)...)
	c.AddPath("root", rts.Base, normalize.Aliases(rts.Base)...)
	if rts.Nonce != "" {
		c.AddNonce(rts.Nonce, rts.Others()...)
	}
	return c
}

// Composed is what the model side of a run returns: its composed session
// log and its token context (nil on failure), its drifts. The values of
// the log's pins are in ModelConfig.Pins.
type Composed struct {
	Log    []byte             // the composed session log, its payloads normalized in Tokens
	Tokens *normalize.Context // the live side's token context
	// RequestDrift: a request the recording does not have; Drifts are
	// those requests, each with the nearest recorded call.
	RequestDrift bool
	Drifts       []proxy.Drift
}

// Compose ends the proxy and composes the session log of the run under a
// header naming the primary session and the agent (from initialize). It
// stops when ctx ends (an interrupted run), with ctx's error.
func (m *Model) Compose(ctx context.Context, primary string, agent sessionlog.AgentInfo) (Composed, []error) {
	m.proxy.Close()
	rep := m.proxy.Report()
	out := Composed{RequestDrift: rep.RequestDrift(), Drifts: rep.Drifts}
	var errs []error
	if err := rep.Err(); err != nil {
		errs = append(errs, err)
	}
	if m.cfg.Record {
		if err := m.normalizeExchanges(ctx, rep.Exchanges); err != nil {
			return out, append(errs, err)
		}
	}
	h := httplog.ComposedHeader{ID: primary, Cwd: m.cfg.Roots.Cwd, Dialect: m.cfg.Dialect, Agent: agent}
	log, err := httplog.Compose(ctx, rep.Exchanges, h, m.cfg.Pins)
	if err != nil {
		return out, append(errs, err)
	}
	out.Log, out.Tokens = log, m.tok
	return out, errs
}

// normalize turns the live values of one request payload into tokens of
// the run's context: the dash-encoded cwd slug some agents use for folder
// names, then normalize's rules, then the scrub rules.
func (m *Model) normalize(b []byte) ([]byte, error) {
	return m.normalizeWith(normalize.Request, b)
}

// normalizeLive is normalize for a live request in replay: its new values
// get provisional tokens, which renumber turns into the recorded call's
// once the request has matched it, so requests that race number their own
// values as recorded whichever came first.
func (m *Model) normalizeLive(b []byte) ([]byte, error) {
	return m.normalizeWith(func(b []byte, c *normalize.Context) ([]byte, error) {
		c.Provisional(true)
		defer c.Provisional(false)
		return normalize.Request(b, c)
	}, b)
}

// normalizeServed is normalize for what the model sent, which replay
// serves again: a payload the rules leave alone keeps its bytes.
func (m *Model) normalizeServed(b []byte) ([]byte, error) {
	return m.normalizeWith(normalize.Payload, b)
}

func (m *Model) normalizeWith(rules func([]byte, *normalize.Context) ([]byte, error), b []byte) ([]byte, error) {
	m.mu.Lock()
	out, err := rules(m.paths.tokenize(b), m.tok)
	m.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if m.cfg.Scrub != nil {
		out = m.cfg.Scrub(out)
	}
	return out, nil
}

// expand turns the tokens of a served payload back into live values: the
// run's paths, and for a numbered token the value it already stands for
// in this run, else a fresh UUID bound to it (so the agent never holds a
// token where the recording had a value, and what it sends back, on ACP
// or to the model, normalizes to the same token).
func (m *Model) expand(b []byte) []byte {
	b = m.paths.expand(b)
	if !bytes.Contains(b, []byte("{{")) {
		return b
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return replaceNumbered(b, func(tok []byte) []byte {
		if v, ok := m.tok.Value(string(tok)); ok {
			return []byte(v)
		}
		v := newUUID()
		m.tok.Bind(v, string(tok))
		return []byte(v)
	})
}

// renumber pairs the numbered tokens of a live request's identity with a
// recorded call's, in order (proxy.Numbering): a token that differs must
// be provisional and get the recorded token, which no other value holds.
// apply gives a request's parts those tokens; commit makes them stand for
// the live values and gives any provisional token left the next number,
// as without Provisional. With no recorded identity (the request matched
// none) commit only does the latter.
func (m *Model) renumber(live, recorded [][]byte) (apply, commit func([][]byte) [][]byte, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	plan := map[string]string{} // provisional token → recorded token
	if recorded != nil && !equalParts(live, recorded) {
		taken := map[string]bool{} // recorded tokens planned
		for i := range live {
			lb, rb := live[i], recorded[i]
			ls, rs := numberedSpans(lb), numberedSpans(rb)
			if len(ls) != len(rs) {
				return nil, nil, false
			}
			for j := 0; j < len(ls); j += 2 {
				lt, rt := lb[ls[j]:ls[j+1]], rb[rs[j]:rs[j+1]]
				if bytes.Equal(lt, rt) {
					continue
				}
				l, r := string(lt), string(rt)
				if p, ok := plan[l]; ok {
					if p != r {
						return nil, nil, false
					}
					continue
				}
				if taken[r] || m.tok.CanRenumber(l, r) != nil {
					return nil, nil, false
				}
				plan[l], taken[r] = r, true
			}
		}
	}
	apply = func(parts [][]byte) [][]byte { return replaceTokens(parts, plan) }
	commit = func(parts [][]byte) [][]byte {
		m.mu.Lock()
		defer m.mu.Unlock()
		for l, r := range plan {
			// Checked above; should a response served since have bound r,
			// l stays as it is and the log shows it.
			m.tok.Renumber(l, r)
		}
		// The provisional tokens left get the next numbers in the order
		// they were handed out, the order of the request as the agent
		// sent it (their numbers have one width).
		var left []string
		for _, b := range parts {
			eachNumbered(b, func(s, _, e int) {
				if tok := string(b[s:e]); normalize.IsProvisional(tok) {
					left = append(left, tok)
				}
			})
		}
		slices.Sort(left)
		settled := map[string]string{}
		for _, tok := range slices.Compact(left) {
			if t, err := m.tok.Settle(tok); err == nil {
				settled[tok] = t
			}
		}
		return replaceTokens(parts, settled)
	}
	return apply, commit, true
}

func equalParts(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// replaceTokens is parts with each token of plan replaced by its value.
func replaceTokens(parts [][]byte, plan map[string]string) [][]byte {
	out := make([][]byte, len(parts))
	for i, b := range parts {
		out[i] = replaceNumbered(b, func(tok []byte) []byte {
			if r, ok := plan[string(tok)]; ok {
				return []byte(r)
			}
			return tok
		})
	}
	return out
}

// normalizeExchanges normalizes what record kept as sent, in call order,
// until ctx ends.
func (m *Model) normalizeExchanges(ctx context.Context, xs []httplog.Exchange) error {
	var errs []error
	for i := range xs {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("normalize the model calls: stopped at call %d: %w", i+1, context.Cause(ctx))
		}
		x := &xs[i]
		var err error
		if x.Request.Header, err = m.normalizeHeader(x.Request.Header); err != nil {
			errs = append(errs, fmt.Errorf("call %d: request headers: %w", i+1, err))
		}
		if x.Request.Body, err = normalizeJSON(m.normalize, x.Request.Body); err != nil {
			errs = append(errs, fmt.Errorf("call %d: request: %w", i+1, err))
		}
		if x.Response.Header, err = m.normalizeHeader(x.Response.Header); err != nil {
			errs = append(errs, fmt.Errorf("call %d: response headers: %w", i+1, err))
		}
		if x.Response.Body, err = normalizeJSON(m.normalizeServed, x.Response.Body); err != nil {
			errs = append(errs, fmt.Errorf("call %d: response: %w", i+1, err))
		}
		for j := range x.Response.Events {
			if x.Response.Events[j].Data, err = normalizeJSON(m.normalizeServed, x.Response.Events[j].Data); err != nil {
				errs = append(errs, fmt.Errorf("call %d: event %d: %w", i+1, j, err))
			}
		}
	}
	return errors.Join(errs...)
}

// normalizeJSON normalizes a payload that is JSON with rules; anything
// else ("[DONE]") is kept as it is.
func normalizeJSON(rules func([]byte) ([]byte, error), b []byte) ([]byte, error) {
	if b == nil || !json.Valid(b) {
		return b, nil
	}
	return rules(b)
}

func (m *Model) normalizeHeader(h map[string]string) (map[string]string, error) {
	if len(h) == 0 {
		return h, nil
	}
	b, err := json.Marshal(h)
	if err == nil {
		b, err = m.normalize(b)
	}
	var out map[string]string
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	return out, err
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
