package llmreplay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/model"
)

// SpawnedByHeader is the request header that routes a request to a child
// script: its value is the id of the tool call that spawned the session.
const SpawnedByHeader = "X-Acpsnap-Spawned-By"

// ServerConfig is what a Server serves.
type ServerConfig struct {
	Primary  Script            // requests without SpawnedByHeader; nil: every such request fails with REPLAY
	Children map[string]Script // by SpawnedByHeader value (the tool-call id as written in the scripts); nil: none
	ReadyDir string            // where hang entries create their readyFile; "": nowhere (see SetReadyDir)
}

// RecordedRequest is one request the Server received.
type RecordedRequest struct {
	Method string
	Path   string
	Header http.Header
	Body   []byte
}

// Server serves scripts over HTTP on 127.0.0.1 in the OpenAI
// chat-completions streaming dialect (see doc.go). Each route (the primary,
// each child) has its own positional cursor.
type Server struct {
	srv    *http.Server
	url    string
	served chan struct{} // closed when Serve returned
	done   chan struct{} // closed by Close: hung streams end

	mu       sync.Mutex
	closed   bool
	active   sync.WaitGroup // handlers running
	cfg      ServerConfig
	cursors  map[string]int // by route: "" is the primary
	requests []RecordedRequest
	errs     []string
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("llmreplay: start server: %w", err)
	}
	s := &Server{
		url:     "http://" + ln.Addr().String(),
		served:  make(chan struct{}),
		done:    make(chan struct{}),
		cfg:     cfg,
		cursors: map[string]int{},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /chat/completions", s.handle)
	mux.HandleFunc("POST /v1/chat/completions", s.handle)
	s.srv = &http.Server{Handler: mux}
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

// Requests returns a copy of every request received so far, in arrival order.
func (s *Server) Requests() []RecordedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]RecordedRequest, len(s.requests))
	for i, r := range s.requests {
		out[i] = RecordedRequest{r.Method, r.Path, r.Header.Clone(), append([]byte(nil), r.Body...)}
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

// handle serves one model call: record, route, take the next entry, serve it.
func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		writeErrorBody(w, http.StatusBadRequest, "BAD_REQUEST", "read request body: "+err.Error())
		return
	}
	e, n, readyDir, rerr := s.take(r, body)
	if rerr != nil {
		if rerr.Code == "CLOSED" {
			writeErrorBody(w, http.StatusServiceUnavailable, "UNAVAILABLE", rerr.Message)
			return
		}
		writeErrorBody(w, http.StatusInternalServerError, rerr.Code, rerr.Message)
		return
	}
	defer s.active.Done()
	var req struct {
		Model string `json:"model"`
	}
	json.Unmarshal(body, &req)
	if req.Model == "" {
		req.Model = "replay"
	}
	s.serve(w, r.Context(), e, "chatcmpl-"+strconv.Itoa(n), req.Model, readyDir)
}

// take records the request and claims the next entry of its route. On
// success the caller must call s.active.Done.
func (s *Server) take(r *http.Request, body []byte) (Entry, int, string, *model.ProviderError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return Entry{}, 0, "", &model.ProviderError{Code: "CLOSED", Message: "llmreplay: server closed"}
	}
	s.requests = append(s.requests, RecordedRequest{r.Method, r.URL.Path, r.Header.Clone(), body})
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
	i := s.cursors[route]
	if i >= len(script) {
		return Entry{}, 0, "", s.fail("script exhausted: %s has %d entries, model call %d was not recorded; re-record the scenario", name, len(script), i+1)
	}
	s.cursors[route] = i + 1
	s.active.Add(1)
	return script[i], n, s.cfg.ReadyDir, nil
}

// fail records a REPLAY error; s.mu is held.
func (s *Server) fail(format string, args ...any) *model.ProviderError {
	err := &model.ProviderError{Code: "REPLAY", Message: "llmreplay: " + fmt.Sprintf(format, args...)}
	s.errs = append(s.errs, err.Error())
	return err
}

// serve writes the response of one entry.
func (s *Server) serve(w http.ResponseWriter, ctx context.Context, e Entry, id, model, readyDir string) {
	if e.Kind == KindThrow && !e.Accepted {
		writeErrorBody(w, errorStatus(e.Code), e.Code, e.Message)
		return
	}
	sse := newSSEWriter(w, id, model)
	if e.Kind == KindHang {
		// DeepSeek's opening event: the adapter makes no chunk of it, and
		// no event makes the Player's lone block-start (see doc.go).
		empty := ""
		if sse.delta(wireDelta{Role: "assistant", Content: &empty}, nil) != nil {
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
	for _, c := range e.Chunks {
		if sse.chunk(c) != nil {
			return
		}
	}
	if e.Kind == KindThrow {
		sse.fail(e.Code, e.Message)
		return
	}
	sse.done()
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
