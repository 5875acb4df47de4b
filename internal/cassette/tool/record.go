package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/acpsnap/acpsnap/internal/cassette"
	"github.com/acpsnap/acpsnap/internal/normalize"
)

// Recorder runs the selected tools for real and records each call at its
// start (identity, ordinal) and its end (value or error), through one
// cassette.Writer. It is safe for concurrent calls: ordinals are taken in
// start order at each path and results pair with their call by path and
// ordinal, in whatever order they finish.
type Recorder struct {
	include *Include
	w       *cassette.Writer
	file    string // for messages
	paths   *normalize.Paths

	mu     sync.Mutex
	next   map[string]int  // the next ordinal at each path
	open   map[handle]bool // started, not finished
	failed error           // the first recording failure: nothing is published
	closed bool
}

// NewRecorder starts recording the calls include selects into file. It
// refuses an invalid include, and a file or <file>.partial that exists.
func NewRecorder(file string, include []string) (*Recorder, error) {
	inc, err := NewInclude(include)
	if err != nil {
		return nil, fmt.Errorf("tool cassette: %w", err)
	}
	w, err := cassette.Create(file, Kind(), policy{Include: inc.Patterns()})
	if err != nil {
		return nil, err
	}
	return &Recorder{include: inc, w: w, file: cassette.Display(file), next: map[string]int{}, open: map[handle]bool{}}, nil
}

// Call runs body and records the call when name is selected. The value it
// returns is the recorded (canonical) value, so that the caller renders in
// record mode exactly what it will render in replay; an error is returned
// as the body gave it (replay returns a *RecordedError with its message).
func (r *Recorder) Call(ctx context.Context, path, name string, args json.RawMessage, body Body) (json.RawMessage, error) {
	if !r.include.Match(name) {
		return body(ctx)
	}
	h, err := r.start(pathOf(path), name, args)
	if err != nil {
		return nil, err
	}
	val, berr := body(ctx)
	return r.finish(h, val, berr)
}

// start takes the next ordinal at path and writes the call/start frame,
// both under one lock so that frame order is ordinal order.
func (r *Recorder) start(path, name string, args json.RawMessage) (handle, error) {
	canon, err := canonicalArgs(r.paths, args)
	r.mu.Lock()
	defer r.mu.Unlock()
	h := handle{path, r.next[path]}
	switch {
	case r.closed:
		return h, errClosed
	case err != nil:
		return h, r.fail(fmt.Errorf("tool cassette: call %d (%s, %s): %w", h.ord, path, name, err))
	}
	r.next[path]++
	if err := r.w.Append(TypeStart, start{Ordinal: h.ord, Path: path, Tool: name, Args: canon}); err != nil {
		return h, r.fail(err)
	}
	r.open[h] = true
	return h, nil
}

// finish writes the call/result frame of call h.
func (r *Recorder) finish(h handle, val json.RawMessage, berr error) (json.RawMessage, error) {
	res := result{Ordinal: h.ord, Path: h.path}
	if berr != nil {
		res.Error = &callError{Message: scrubText(r.paths, berr.Error())}
	} else {
		if len(val) == 0 {
			val = json.RawMessage("null")
		}
		var err error
		if res.Value, val, err = r.value(val); err != nil {
			return nil, r.failLocked(fmt.Errorf("tool cassette: call %d (%s): the result is not JSON: %w", h.ord, h.path, err))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return val, berr // Close already refused to publish: the call never finished in time
	}
	delete(r.open, h)
	if err := r.w.Append(TypeResult, res); err != nil {
		return nil, r.fail(err)
	}
	return val, berr
}

// value returns what the cassette stores of a result (canonical, the run's
// folders as tokens) and what the caller gets: the same with today's
// folders, exactly what a replay hands back.
func (r *Recorder) value(val json.RawMessage) (stored, live json.RawMessage, err error) {
	c, err := cassette.Canonical(val)
	if err == nil {
		stored, err = scrub(r.paths, c)
	}
	if err == nil {
		live, err = expand(r.paths, stored)
	}
	return stored, live, err
}

// fail keeps the first failure; the caller holds mu.
func (r *Recorder) fail(err error) error {
	if r.failed == nil {
		r.failed = err
	}
	return err
}

func (r *Recorder) failLocked(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fail(err)
}

// Close publishes the cassette when every call finished and nothing
// failed. Otherwise it keeps <file>.partial, publishes nothing and says why.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	var err error
	switch {
	case r.failed != nil:
		err = fmt.Errorf("tool cassette: %s: not published (the .partial is kept): %w", r.file, r.failed)
	case len(r.open) > 0:
		err = fmt.Errorf("tool cassette: %s: not published (the .partial is kept): %d call(s) never finished: %s", r.file, len(r.open), handles(r.open))
	default:
		return r.w.Complete()
	}
	return errors.Join(err, r.w.Close())
}

// handles lists open calls as "call 0 (root), call 2 (root/task-1~0)".
func handles(m map[handle]bool) string {
	var hs []handle
	for h := range m {
		hs = append(hs, h)
	}
	sort.Slice(hs, func(i, j int) bool {
		if hs[i].path != hs[j].path {
			return hs[i].path < hs[j].path
		}
		return hs[i].ord < hs[j].ord
	})
	parts := make([]string, len(hs))
	for i, h := range hs {
		parts[i] = fmt.Sprintf("call %d (%s)", h.ord, h.path)
	}
	return strings.Join(parts, ", ")
}
