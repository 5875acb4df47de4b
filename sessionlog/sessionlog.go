// Package sessionlog reads and writes the session log of docs/format.md
// ("Session log"). A log is a header line, then events with contiguous seq
// from 0. The reference agent writes it. llmreplay derives replay scripts
// from it. The harness polls it and harvests it.
package sessionlog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/acpsnap/acpsnap/internal/jsonl"
	"github.com/acpsnap/acpsnap/internal/jsonscan"
)

// FileName is the name of a session log inside its session directory.
const FileName = "session.jsonl"

// Header is line 1 of a session log.
type Header struct {
	Type            string `json:"type"` // always "session"
	Version         int    `json:"version"`
	ID              string `json:"id"`
	CreatedAt       int64  `json:"createdAt"` // unix milliseconds
	Cwd             string `json:"cwd"`
	DelegationDepth int    `json:"delegationDepth"`
	ParentSession   string `json:"parentSession,omitempty"`
	Origin          string `json:"origin,omitempty"` // "subagent" for children
	SpawnedBy       string `json:"spawnedBy,omitempty"`
	// Dialect and Agent are set in a composed log (an agent that talks to
	// its model over HTTP; see package llmreplay/httplog): the model dialect, and the agent
	// as its ACP initialize response named it.
	Dialect string     `json:"dialect,omitempty"`
	Agent   *AgentInfo `json:"agent,omitempty"`
}

// AgentInfo names the agent as its initialize response did.
type AgentInfo struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Event is every line after the header.
type Event struct {
	Type string          `json:"type"`
	Seq  int             `json:"seq"`
	Time int64           `json:"time"` // unix milliseconds
	Data json.RawMessage `json:"data"`
	// Line is the 1-based line number the event was read from (0 when written).
	Line int `json:"-"`
}

// Log is a parsed session log.
type Log struct {
	Name   string // the file name used in errors
	Header Header
	Events []Event
}

// ReadFile parses the log at path; errors carry "path:line:".
func ReadFile(path string) (*Log, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f, path)
}

// Read parses a log from r; name prefixes every error as "name:line: ...".
// The header must be line 1, every event must have a type and seq must run
// contiguously from 0; every line keeps the JSON rules of internal/jsonscan
// (a repeated key is refused: "name:7: $.data.text: duplicate key").
func Read(r io.Reader, name string) (*Log, error) {
	l := &Log{Name: name}
	err := jsonl.Each(r, func(n int, line []byte) error {
		if len(bytes.TrimSpace(line)) == 0 {
			return fmt.Errorf("%s:%d: empty line", name, n)
		}
		valid := json.Valid(line)
		if valid {
			if err := jsonscan.Check(line, "$"); err != nil {
				return fmt.Errorf("%s:%d: %v", name, n, err)
			}
		}
		if n == 1 {
			if err := strictUnmarshal(line, &l.Header); err != nil {
				return fmt.Errorf("%s:1: header: %w", name, err)
			}
			if l.Header.Type != "session" {
				return fmt.Errorf("%s:1: header: type is %q, want \"session\"", name, l.Header.Type)
			}
			return nil
		}
		var e Event
		if !valid || !plainEvent(line, &e) {
			e = Event{} // what the fast path may have set
			if err := strictUnmarshal(line, &e); err != nil {
				return fmt.Errorf("%s:%d: event: %w", name, n, err)
			}
		}
		if e.Type == "" {
			return fmt.Errorf("%s:%d: event: missing type", name, n)
		}
		if want := len(l.Events); e.Seq != want {
			return fmt.Errorf("%s:%d: event: seq is %d, want %d", name, n, e.Seq, want)
		}
		e.Line = n
		e.Data = append(json.RawMessage(nil), e.Data...)
		l.Events = append(l.Events, e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if l.Header.Type == "" {
		return nil, fmt.Errorf("%s:1: missing header", name)
	}
	return l, nil
}

func strictUnmarshal(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after JSON value")
	}
	return nil
}

// Writer appends events to a log file. Each event is one write on an
// O_APPEND file, so a reader polling the file sees whole lines only once
// they are complete (the harness waits on them). Safe for concurrent use;
// seq is assigned under the lock, so file order equals seq order.
type Writer struct {
	mu  sync.Mutex
	f   *os.File
	seq int
	now func() time.Time
}

// Create creates path (and its directory) and writes the header. now == nil
// means time.Now.
func Create(path string, h Header, now func() time.Time) (*Writer, error) {
	if now == nil {
		now = time.Now
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, fmt.Errorf("sessionlog: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("sessionlog: %w", err)
	}
	h.Type = "session"
	if h.Version == 0 {
		h.Version = 1
	}
	b, err := jsonl.Marshal(h)
	if err == nil {
		_, err = f.Write(b)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("sessionlog: write header: %w", err)
	}
	return &Writer{f: f, now: now}, nil
}

// Reopen opens the existing log at path, read as l, to append events
// after its last one (seq continues from len(l.Events)). now == nil means
// time.Now.
func Reopen(path string, l *Log, now func() time.Time) (*Writer, error) {
	if now == nil {
		now = time.Now
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("sessionlog: %w", err)
	}
	return &Writer{f: f, seq: len(l.Events), now: now}, nil
}

// Append writes one event with the next seq and the current time.
func (w *Writer) Append(typ string, data any) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return fmt.Errorf("sessionlog: marshal %s: %w", typ, err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return fmt.Errorf("sessionlog: append %s: log closed", typ)
	}
	b, err := jsonl.Marshal(Event{Type: typ, Seq: w.seq, Time: w.now().UnixMilli(), Data: raw})
	if err != nil {
		return err
	}
	if _, err := w.f.Write(b); err != nil {
		return fmt.Errorf("sessionlog: append %s: %w", typ, err)
	}
	w.seq++
	return nil
}

// Close flushes and closes the file; further appends fail.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return nil
	}
	err := w.f.Close()
	w.f = nil
	return err
}
