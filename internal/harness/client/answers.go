package client

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"sync"

	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// Wire is the agent's stdin, shared by the SDK and the raw ops (request,
// notify, clientAnswers): each message goes out in one Write under its
// lock, so two writers never interleave inside a line. It keeps what it
// wrote (Sent), for the protocol's checks.
type Wire struct {
	mu   sync.Mutex
	w    io.Writer
	seen func() int // the agent's stdout lines so far
	sent []Sent
}

// Sent is one message the client wrote and where it falls among the
// agent's stdout lines: After of them were recorded before it was written,
// so everything the agent wrote in answer comes later.
type Sent struct {
	Line  []byte // the message, without "\n"; a large one without its payload (keep)
	After int
}

// NewWire is the Wire that writes to w; seen counts the agent's stdout
// lines recorded so far.
func NewWire(w io.Writer, seen func() int) *Wire { return &Wire{w: w, seen: seen} }

// Write writes p, one message, in one Write under the lock, and keeps it.
func (w *Wire) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.sent = append(w.sent, Sent{Line: keep(bytes.TrimSuffix(p, []byte("\n"))), After: w.seen()})
	return w.w.Write(p)
}

// Sent are the messages written so far, in order.
func (w *Wire) Sent() []Sent {
	if w == nil { // a run whose client is not the harness (capture)
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.sent)
}

// keepMax is the longest message Sent keeps whole.
const keepMax = 64 << 10

// keep is a copy of the message p, or for a message longer than keepMax
// (a large file served to fs/read_text_file) the message without its
// payload: its id, method and session, and an empty result or its error.
func keep(p []byte) []byte {
	if len(p) <= keepMax {
		return bytes.Clone(p)
	}
	var m map[string]json.RawMessage
	json.Unmarshal(p, &m)
	if _, ok := m["result"]; ok {
		m["result"] = json.RawMessage("{}")
	}
	if params, ok := m["params"]; ok {
		var ps struct {
			SessionID string `json:"sessionId,omitempty"`
		}
		json.Unmarshal(params, &ps)
		m["params"], _ = json.Marshal(ps)
	}
	b, _ := json.Marshal(m)
	return b
}

// Send writes one JSON-RPC message and "\n".
func (w *Wire) Send(msg map[string]any) error {
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Book is what the harness answers from input.json, across every
// incarnation of the agent: the permission answers and the scripted
// clientAnswers, each used in order.
type Book struct {
	mu          sync.Mutex
	permissions []scenario.PermissionAnswer
	asked       int
	answers     []scenario.ClientAnswer
	used        []bool
}

// NewBook is the Book of in's permissionAnswers and clientAnswers.
func NewBook(in *scenario.Input) *Book {
	return &Book{permissions: in.PermissionAnswers, answers: in.ClientAnswers, used: make([]bool, len(in.ClientAnswers))}
}

// next takes the next unused clientAnswers entry of method.
func (b *Book) next(method string) (scenario.ClientAnswer, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for i, a := range b.answers {
		if !b.used[i] && a.Method == method {
			b.used[i] = true
			return a, true
		}
	}
	return scenario.ClientAnswer{}, false
}

// Answering is what the SDK reads: the lines of src, less the agent's
// requests that a clientAnswers entry answers (written to w). Every other
// request reaches the SDK, which answers the methods it does not serve
// -32601. Close ends it.
func (b *Book) Answering(src io.Reader, w *Wire) io.ReadCloser {
	if len(b.answers) == 0 {
		return io.NopCloser(src)
	}
	pr, pw := io.Pipe()
	go func() {
		s := strictjson.NewScanner(src)
		for s.Scan() {
			if b.answer(s.Bytes(), w) {
				continue
			}
			if _, err := pw.Write(append(s.Bytes(), '\n')); err != nil {
				return
			}
		}
		pw.CloseWithError(s.Err())
	}()
	return pr
}

// answer answers line, an agent→client request, from the book; false
// when it is not a request or no entry is left for its method.
func (b *Book) answer(line []byte, w *Wire) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method == "" || len(m.ID) == 0 || string(m.ID) == "null" {
		return false
	}
	a, ok := b.next(m.Method)
	if !ok {
		return false
	}
	msg := map[string]any{"id": m.ID}
	if a.Error != nil {
		msg["error"] = a.Error
	} else {
		msg["result"] = a.Result
	}
	w.Send(msg) // a failed write is the agent gone, which the run reports
	return true
}
