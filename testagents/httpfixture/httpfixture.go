// Package httpfixture is the local HTTP service the bundled corpus's fetch
// scenarios are recorded against (scripts/gen-corpus runs it during record
// only; replay serves the tool cassette with nothing listening):
//
//	/weather   "sunny, 21°C"
//	/forecast  "rain tomorrow"
//	/fast      "fast done", answered only once /slow has arrived
//	/slow      "slow done", answered only after /fast has been
//
// so two concurrent fetches of /slow and /fast are both in flight at once
// and /slow, however early it started, finishes last (each wait is bounded
// by 10s; /slow answers 200ms after /fast).
//
// Every request is counted (Server.Hits), so a test can assert that a
// replay made none.
package httpfixture

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Addr is where the corpus's scenarios expect the service: their model
// scripts name it in the URLs they fetch.
const Addr = "127.0.0.1:47615"

// slowWait bounds how long /slow and /fast wait for each other.
const slowWait = 10 * time.Second

// slowLag is how long /slow still waits after /fast has answered, so that
// the client has read /fast's whole answer before /slow's arrives.
const slowLag = 200 * time.Millisecond

// Server is the service's handler.
type Server struct {
	hits               atomic.Int64
	fastOnce, slowOnce sync.Once
	fastDone, slowSeen chan struct{}
}

// New returns a fresh service.
func New() *Server { return &Server{fastDone: make(chan struct{}), slowSeen: make(chan struct{})} }

// wait waits for ch, at most slowWait; false when the request went away.
func wait(r *http.Request, ch <-chan struct{}) bool {
	select {
	case <-ch:
	case <-time.After(slowWait):
	case <-r.Context().Done():
		return false
	}
	return true
}

// Hits is the number of requests served so far.
func (s *Server) Hits() int64 { return s.hits.Load() }

// ServeHTTP answers the four paths; anything else is 404.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.hits.Add(1)
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	switch r.URL.Path {
	case "/weather":
		w.Write([]byte("sunny, 21°C"))
	case "/forecast":
		w.Write([]byte("rain tomorrow"))
	case "/fast":
		if !wait(r, s.slowSeen) {
			return
		}
		w.Write([]byte("fast done"))
		s.fastOnce.Do(func() { close(s.fastDone) })
	case "/slow":
		s.slowOnce.Do(func() { close(s.slowSeen) })
		if !wait(r, s.fastDone) {
			return
		}
		time.Sleep(slowLag)
		w.Write([]byte("slow done"))
	default:
		http.NotFound(w, r)
	}
}
