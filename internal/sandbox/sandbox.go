package sandbox

import (
	"errors"
	"io"
	"net"
	"slices"
	"strings"
	"sync"
)

// ErrUnavailable says that no loopback-only network namespace can be made
// on this machine; the error wrapping it says what was tried.
var ErrUnavailable = errors.New("cannot create a network namespace")

// Config is how Reexec starts the process inside the namespace.
type Config struct {
	Args []string // the command line; Args[0] names the program (multi-call binaries), /proc/self/exe is what runs
	Env  []string // its environment (nil: none); the caller adds its own "you are inside" marker
	// Hidden are more variables ("NAME=value") of its environment that
	// reach it through a pipe, not execve: Enter sets them, and
	// /proc/<pid>/environ of the process inside never shows them (a key of
	// a record run). nil: none.
	Hidden []string
	// Dial gives the process inside a way out: Sandbox.Dial connects from
	// the network of the process that called Reexec (a record run's live
	// model). false: nothing inside reaches another network.
	Dial   bool
	Stdin  io.Reader // nil: /dev/null
	Stdout io.Writer // nil: /dev/null
	Stderr io.Writer // nil: /dev/null
}

// Sandbox is the inside of a prepared namespace, watched.
type Sandbox struct {
	dns      *refuser
	connects *counter // nil: not watched
	stop     func()   // stops the connect watcher

	mu  sync.Mutex    // one Dial exchange at a time
	ctl *net.UnixConn // the way out (Config.Dial); nil: none
}

// Close stops watching and closes the way out. Attempts after Close is
// final.
func (s *Sandbox) Close() {
	s.dns.Close()
	if s.stop != nil {
		s.stop()
	}
	if s.ctl != nil {
		s.ctl.Close()
	}
}

// Attempts is what the processes in the namespace tried to reach.
type Attempts struct {
	Lookups  []Count // names asked of the DNS responder (lowercased, no final dot); A and AAAA count twice
	Connects []Count // "tcp 192.0.2.1:443", "udp 198.51.100.7:53": the first packet of each attempt
}

// None reports whether nothing was tried.
func (a Attempts) None() bool { return len(a.Lookups) == 0 && len(a.Connects) == 0 }

// Attempts returns the attempts seen so far, each list sorted by key.
func (s *Sandbox) Attempts() Attempts {
	a := Attempts{Lookups: s.dns.names.sorted()}
	if s.connects != nil {
		a.Connects = s.connects.sorted()
	}
	return a
}

// Count is one counted string.
type Count struct {
	Key string
	N   int
}

// counter counts strings; safe for concurrent use.
type counter struct {
	mu sync.Mutex
	n  map[string]int
}

func newCounter() *counter { return &counter{n: map[string]int{}} }

func (c *counter) add(key string) {
	c.mu.Lock()
	c.n[key]++
	c.mu.Unlock()
}

// sorted is what was counted, sorted by key.
func (c *counter) sorted() []Count {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Count, 0, len(c.n))
	for k, n := range c.n {
		out = append(out, Count{k, n})
	}
	slices.SortFunc(out, func(a, b Count) int { return strings.Compare(a.Key, b.Key) })
	return out
}
