package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Child runs one child agent for the Recorder. It calls run.Started once
// the child is running (its run is published): an error before that is a
// start error, after it a result error. ctx is the parent's; a child that
// sees it done returns. A child the parent disposed of returns ErrDisposed.
type Child func(ctx context.Context, run *Run) (Result, error)

// Run is one admitted child call.
type Run struct {
	// Key is the call's topology path; a child that starts children of
	// its own passes it as their Parent.Path.
	Key     string
	mu      sync.Mutex
	started time.Time
	now     func() time.Time
}

// Started marks the child as running; later calls do nothing.
func (r *Run) Started() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started.IsZero() {
		r.started = r.now()
	}
}

func (r *Run) startedAt() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.started
}

// Boundary is where a parent starts children: a Recorder or a Player.
type Boundary interface {
	Call(ctx context.Context, parent Parent, req Request, child Child) (Result, error)
	Close() error
}

var (
	_ Boundary = (*Recorder)(nil)
	_ Boundary = (*Player)(nil)
)

// tape is where a Recorder writes frames (the protocol's Writer).
type tape interface {
	Append(typ string, body any) error
	Complete() error
	Close() error
}

// Recorder records child calls at their boundary: Call runs the child and
// writes how it ended. It is safe for concurrent use; interactions are
// written as they finish, in any order, each with its admission number.
type Recorder struct {
	mu       sync.Mutex
	s        settings
	red      redactor
	tape     tape
	publish  func() error // after the tape is complete (append, truncate)
	release  func() error // the writer lock
	name     string
	admitted int
	occ      map[group]int
	keys     map[string]bool
	inflight int
	closed   bool
	err      error // the first failure to write; Close returns it
}

func newRecorder(s settings, t tape) *Recorder {
	return &Recorder{s: s, red: redactor{on: s.redact, extra: s.extra}, tape: t,
		occ: map[group]int{}, keys: map[string]bool{Root: true}}
}

// seed continues the admissions and occurrences of an existing cassette.
func (r *Recorder) seed(its []Interaction) {
	for i := range its {
		r.admitted = max(r.admitted, its[i].Admission)
		r.occ[its[i].group()]++
		r.keys[its[i].Key] = true
	}
}

// Call admits the call (its occurrence and Key are fixed now, in start
// order), runs child and records its outcome. It returns what replay
// will serve, unredacted: the result with its output in canonical form,
// the child's error, or the aborted result after an abort after the start
// or a dispose. A parent path that is neither the root
// nor an admitted call's Key is refused before child runs.
func (r *Recorder) Call(ctx context.Context, parent Parent, req Request, child Child) (Result, error) {
	if child == nil {
		return Result{}, errors.New("subagent cassette: record: nil child")
	}
	id, err := identify(parent, req)
	if err != nil {
		return Result{}, err
	}
	it, run, err := r.admit(id)
	if err != nil {
		return Result{}, err
	}
	t0 := r.s.now()
	res, cerr := child(ctx, run)
	end := r.s.now()
	it.Outcome = outcomeOf(ctx, run.startedAt(), t0, end, res, cerr)
	live, err := r.finish(it, req)
	if err != nil {
		return Result{}, err
	}
	switch it.Outcome.Kind {
	case OutcomeResult:
		return live, nil // canonical, as replay serves it, but not redacted
	case OutcomeAbortAfterStart, OutcomeDispose:
		return abortedResult(), nil
	}
	if cerr == nil { // a child that returned without starting or failing
		e := *it.Outcome.Error
		return Result{}, &e
	}
	return Result{}, cerr
}

func (r *Recorder) admit(id identity) (*Interaction, *Run, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case r.closed:
		return nil, nil, errors.New("subagent cassette: call after Close")
	case r.err != nil:
		return nil, nil, r.err
	case !r.keys[id.parent]:
		return nil, nil, fmt.Errorf("subagent cassette: parent %s: not the root and not an admitted call (one root per cassette)", Escape(id.parent))
	}
	r.admitted++
	r.occ[id.group()]++
	it := &Interaction{Admission: r.admitted, Parent: id.parent, Label: id.label, Occurrence: r.occ[id.group()],
		ContextFingerprint: id.context, RequestFingerprint: id.request, InheritsContext: id.inherits}
	it.Key = CallKey(it.Parent, it.Label, it.ContextFingerprint, it.RequestFingerprint, it.Occurrence)
	r.keys[it.Key] = true
	r.inflight++
	return it, &Run{Key: it.Key, now: r.s.now}, nil
}

// outcomeOf classifies how the child ended.
func outcomeOf(ctx context.Context, started, t0, end time.Time, res Result, err error) Outcome {
	o := Outcome{StartMillis: -1, DurationMillis: millis(end.Sub(t0))}
	ran := !started.IsZero()
	if ran {
		o.StartMillis = min(millis(started.Sub(t0)), o.DurationMillis)
	}
	switch {
	case !ran && ctx.Err() != nil:
		if err == nil {
			err = ctx.Err()
		}
		o.Kind, o.Error = OutcomeAbortBeforeStart, recordError(err)
		o.Error.Name = "AbortError"
	case !ran:
		o.Kind, o.Error = OutcomeStartError, recordError(errOr(err))
	case errors.Is(err, ErrDisposed):
		o.Kind = OutcomeDispose
	case ctx.Err() != nil:
		o.Kind = OutcomeAbortAfterStart
	case err != nil:
		o.Kind, o.Error = OutcomeResultError, recordError(err)
	default:
		if res.Output == nil {
			res.Output = json.RawMessage("null")
		}
		o.Kind, o.Result = OutcomeResult, &res
	}
	return o
}

// errOr is err, or the error of a child that returned nil without having
// started.
func errOr(err error) error {
	if err == nil {
		return errors.New("the child returned without starting")
	}
	return err
}

func millis(d time.Duration) int64 { return max(d.Milliseconds(), 0) }

// finish redacts and writes the interaction; it returns the result with
// its output in canonical form, unredacted.
func (r *Recorder) finish(it *Interaction, req Request) (Result, error) {
	live, err := r.store(it, req)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inflight--
	if r.err != nil {
		return Result{}, r.err
	}
	if err == nil {
		err = r.tape.Append(FrameInteraction, it)
	}
	if err != nil {
		err = fmt.Errorf("subagent cassette: record %s: %w", Escape(it.Key), err)
		if r.err == nil {
			r.err = err // a call missing from the tape: nothing is published
		}
	}
	return live, err
}

// Close waits for nothing: a call still running makes it fail and keeps
// the partial recording unpublished. Otherwise it completes and
// publishes the cassette. The writer lock is released either way.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	err := r.err
	if err == nil && r.inflight > 0 {
		err = fmt.Errorf("subagent cassette: %s: %d calls still running; the recording is not published", r.name, r.inflight)
	}
	if err == nil {
		err = r.tape.Complete()
	}
	if err == nil && r.publish != nil {
		err = r.publish()
	}
	if err != nil {
		r.tape.Close()
	}
	if r.release != nil {
		err = errors.Join(err, r.release())
	}
	return err
}
