package replay

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/internal/normalize"
	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
	"github.com/acpsnap/acpsnap/model"
)

// SpawnedByHeader is the request header that routes a request to a child
// script: its value is the id of the tool call that spawned the session.
const SpawnedByHeader = wire.SpawnedByHeader

// ServerConfig is what a Server serves.
type ServerConfig struct {
	Primary  Script            // requests without SpawnedByHeader; nil: every such request fails with REPLAY
	Children map[string]Script // by SpawnedByHeader value (the tool-call id as written in the scripts); nil: none
	ReadyDir string            // where hang entries create their readyFile; "": nowhere (see SetReadyDir)
	Dialect  string            // one of Dialects; "": openai-chat
}

// RecordedRequest is one request the Server received.
type RecordedRequest struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
	At     time.Time // when it arrived
	Done   time.Time // when its answer was written; zero: not (yet) served
	// Served: it claimed an entry of its script (false: a token count, or
	// a call the script has no entry for, answered with a REPLAY error).
	Served bool
}

// Server serves scripts over HTTP on 127.0.0.1 in one model dialect (see
// doc.go). Each route (the primary, each child) has its own positional
// cursor.
type Server struct {
	dialect *dialect.Dialect
	srv     *http.Server
	url     string
	served  chan struct{} // closed when Serve returned
	done    chan struct{} // closed by Close: hung streams end

	mu       sync.Mutex
	closed   bool
	active   sync.WaitGroup // handlers running
	cfg      ServerConfig
	cursors  map[string]int    // entries served, by route: "" is the primary
	used     map[string][]bool // by route, by entry: served
	requests []RecordedRequest
	errs     []string
	paths    *strings.Replacer // SetRoots; nil: paths are served as written
}

// NewServer starts a Server on a free port of 127.0.0.1.
func NewServer(cfg ServerConfig) (*Server, error) {
	if err := checkKinds("primary", cfg.Primary); err != nil {
		return nil, err
	}
	for id, s := range cfg.Children {
		if err := checkKinds("child "+id, s); err != nil {
			return nil, err
		}
	}
	d, err := lookupDialect(cfg.Dialect)
	if err != nil {
		return nil, fmt.Errorf("llmreplay: start server: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("llmreplay: start server: %w", err)
	}
	s := &Server{
		dialect: d,
		url:     "http://" + ln.Addr().String(),
		served:  make(chan struct{}),
		done:    make(chan struct{}),
		cfg:     cfg,
		cursors: map[string]int{},
		used:    map[string][]bool{},
	}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.handle)}
	go func() {
		defer close(s.served)
		s.srv.Serve(ln)
	}()
	return s, nil
}

// checkKinds rejects entries of unknown kind, which the Server could not serve.
func checkKinds(what string, s Script) error {
	for i, e := range s {
		if _, ok := entryKeys[e.Kind]; !ok {
			return fmt.Errorf("llmreplay: start server: %s[%d]: unknown entry kind %q", what, i, e.Kind)
		}
	}
	return nil
}

// URL returns the base URL, "http://127.0.0.1:PORT".
func (s *Server) URL() string { return s.url }

// SetReadyDir sets where later hang entries create their readyFile.
func (s *Server) SetReadyDir(dir string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.ReadyDir = dir
}

// SetRoots sets the run's folders: later entries expand {{cwd}},
// {{home}} and {{root}} (and their spellings relative to "/") to them, as
// replay does, and hang entries create
// their readyFile in cwd.
func (s *Server) SetRoots(cwd, home, root string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.ReadyDir = cwd
	s.paths = normalize.Expander(cwd, home, root)
}

// Requests returns a copy of every request received so far, in arrival order.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RecordedRequest, len(s.requests))
	for i, r := range s.requests {
		out[i] = r
		out[i].Header, out[i].Body = r.Header.Clone(), append([]byte(nil), r.Body...)
	}
	return out
}

// Report returns the consumption of each route ("primary", then each child
// by tool-call id in sorted order) and the REPLAY errors answered so far.
func (s *Server) Report() agentenv.Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := agentenv.Report{Fixtures: []agentenv.FixtureReport{s.fixtureReport("primary", "", s.cfg.Primary)}}
	ids := make([]string, 0, len(s.cfg.Children))
	for id := range s.cfg.Children {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		r.Fixtures = append(r.Fixtures, s.fixtureReport(id, id, s.cfg.Children[id]))
	}
	r.Errors = append([]string(nil), s.errs...)
	return r
}

func (s *Server) fixtureReport(name, route string, script Script) agentenv.FixtureReport {
	n := s.cursors[route]
	return agentenv.FixtureReport{Fixture: name, Served: n, Left: len(script) - n}
}

// Close stops the server: hung streams end, connections close, and Close
// returns once every handler has returned.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	err := s.srv.Close() // connections break first: a hung stream ends without a clean end
	close(s.done)
	<-s.served
	s.active.Wait()
	return err
}

// handle serves one request: a model call, a token count, or a refusal
// (404 for a path the dialect does not serve, 405 for a method other than
// POST).
func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	ep, pathModel, ok := s.dialect.Route(r.URL.Path)
	switch {
	case !ok:
		http.NotFound(w, r)
		return
	case r.Method != ep.Method:
		w.Header().Set("Allow", ep.Method)
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeError(s.dialect, w, model.CodeBadRequest, "read request body: "+err.Error())
		return
	}
	if ep.Kind == dialect.Count {
		s.record(r, body)
		writeBody(w, http.StatusOK, s.dialect.Codec.CountTokens(body))
		return
	}
	e, n, readyDir, rerr := s.take(r, body)
	if rerr != nil {
		if rerr.Code == "CLOSED" {
			writeError(s.dialect, w, model.CodeUnavailable, rerr.Message)
			return
		}
		writeError(s.dialect, w, rerr.Code, rerr.Message)
		return
	}
	defer s.active.Done()
	var req struct {
		Model  string `json:"model"`
		Stream *bool  `json:"stream"`
	}
	json.Unmarshal(body, &req)
	res := wire.Response{ID: s.dialect.IDPrefix + strconv.Itoa(n), Model: cmp.Or(req.Model, pathModel, "replay")}
	streamed := ep.Stream == dialect.Streamed || ep.Stream == dialect.StreamMember && (req.Stream == nil || *req.Stream)
	s.serve(w, r.Context(), e, res, streamed, readyDir)
	s.mu.Lock()
	s.requests[n-1].Done = time.Now()
	s.mu.Unlock()
}

// record keeps a request that consumes no entry.
func (s *Server) record(r *http.Request, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, RecordedRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, At: time.Now()})
}

// take records the request and claims the next entry of its route. On
// success the caller must call s.active.Done.
func (s *Server) take(r *http.Request, body []byte) (Entry, int, string, *model.ProviderError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Entry{}, 0, "", &model.ProviderError{Code: "CLOSED", Message: "llmreplay: server closed"}
	}
	s.requests = append(s.requests, RecordedRequest{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body, At: time.Now()})
	n := len(s.requests)
	route := r.Header.Get(SpawnedByHeader)
	script, ok := s.cfg.Primary, true
	name := "primary"
	if route != "" {
		script, ok = s.cfg.Children[route]
		name = "child " + route
	}
	if !ok {
		return Entry{}, 0, "", s.fail("unrecorded session: no child script for tool call %q; re-record the scenario", route)
	}
	i := s.next(route, script, body)
	if i < 0 {
		return Entry{}, 0, "", s.fail("script exhausted: %s has %d entries, model call %d was not recorded; re-record the scenario", name, len(script), s.cursors[route]+1)
	}
	e, err := expandRequest(s.expandPaths(script[i]), body)
	if err != nil {
		return Entry{}, 0, "", s.fail("%s: entry %d (request %d): %v", name, i+1, n, err)
	}
	s.used[route][i] = true
	s.cursors[route]++
	s.requests[n-1].Served = true
	s.active.Add(1)
	return e, n, s.cfg.ReadyDir, nil
}

// next is the entry of script that answers a request with body: the
// first unserved one whose Match matches it, else the first unserved one
// without a Match; -1 when none is left. s.mu is held.
func (s *Server) next(route string, script Script, body []byte) int {
	used := s.used[route]
	if used == nil {
		used = make([]bool, len(script))
		s.used[route] = used
	}
	free := -1
	for i, e := range script {
		switch {
		case used[i]:
		case e.Match != nil && s.matches(e.Match, body):
			return i
		case e.Match == nil && free < 0:
			free = i
		}
	}
	return free
}

// pathToken is a placeholder of the run's folders in a match ({{cwd}},
// {{homeRel}}, …; normalize.Expander says which ones exist).
var pathToken = regexp.MustCompile(`\{\{[A-Za-z]+\}\}`)

// matches reports whether re matches body, the run's folders in re
// ({{cwd}}, …, SetRoots) standing for their live values, as they do in
// the entries served: "{{cwd}}/notes\.txt" matches the live path, quoted,
// whatever characters it holds. s.mu is held.
func (s *Server) matches(re *regexp.Regexp, body []byte) bool {
	src := re.String()
	if s.paths == nil || !pathToken.MatchString(src) {
		return re.Match(body)
	}
	live, err := regexp.Compile(pathToken.ReplaceAllStringFunc(src, func(tok string) string {
		if v := s.paths.Replace(tok); v != tok {
			return regexp.QuoteMeta(v)
		}
		return tok
	}))
	if err != nil {
		s.fail("match %q with the run's folders: %v", src, err)
		return false
	}
	return live.Match(body)
}

// expandPaths gives the path tokens of e the run's folders (SetRoots), as
// replay does; s.mu is held. Numbered tokens ({{toolCall:N}}, …) are served
// as written: the agent repeats them, and they normalize to themselves.
func (s *Server) expandPaths(e Entry) Entry {
	if s.paths == nil {
		return e
	}
	return e.mapStrings(s.paths.Replace)
}

// fail records a REPLAY error; s.mu is held.
func (s *Server) fail(format string, args ...any) *model.ProviderError {
	err := &model.ProviderError{Code: "REPLAY", Message: "llmreplay: " + fmt.Sprintf(format, args...)}
	s.errs = append(s.errs, err.Error())
	return err
}

// serve writes the response of one entry; res holds its id and model.
func (s *Server) serve(w http.ResponseWriter, ctx context.Context, e Entry, res wire.Response, streamed bool, readyDir string) {
	if e.Kind == KindThrow && !e.Accepted {
		writeError(s.dialect, w, e.Code, e.Message)
		return
	}
	if e.Kind == KindHang {
		if streamed && newStream(w).send(s.dialect.Codec.RenderHang(res.ID, res.Model)) != nil {
			return
		}
		if readyDir != "" && e.ReadyFile != "" {
			createReady(readyDir, e.ReadyFile)
		}
		select {
		case <-ctx.Done():
		case <-s.done:
		}
		return
	}
	res.Chunks = e.Chunks
	if e.Kind == KindThrow {
		res.Err = &model.ProviderError{Code: e.Code, Message: e.Message}
	}
	if !streamed {
		status, body := s.dialect.Codec.RenderJSON(res)
		writeBody(w, status, body)
		return
	}
	newStream(w).send(s.dialect.Codec.Render(res))
}

// createReady creates the empty file dir/rel (and its directory). Creating
// an empty file is atomic: a waiter sees it or not.
func createReady(dir, rel string) error {
	path := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	return f.Close()
}
