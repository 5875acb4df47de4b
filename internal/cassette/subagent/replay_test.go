package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Two different children started in one message, recorded A/B (admission)
// while completing B/A, replay to the right parent whatever the order.
func TestSiblingsCompleteInAnyOrder(t *testing.T) {
	path := cassettePath(t)
	aRunning, bDone := make(chan struct{}), make(chan struct{})
	record(t, path, Options{}, func(r *Recorder) {
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			call(t, r, rootParent(), req("a", "look at A"), func(ctx context.Context, run *Run) (Result, error) {
				run.Started()
				close(aRunning)
				<-bDone // A finishes after B
				return textResult("A's answer"), nil
			})
		}()
		go func() {
			defer wg.Done()
			<-aRunning // B is admitted second
			call(t, r, rootParent(), req("b", "look at B"), returns(textResult("B's answer")))
			close(bDone)
		}()
		wg.Wait()
	})
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, it := range c.Interactions {
		order = append(order, it.Label)
	}
	if diff := cmp.Diff([]string{"a", "b"}, order); diff != "" {
		t.Errorf("admission order (-want +got):\n%s", diff)
	}
	if i, j := strings.Index(readFile(t, path), `"label":"a"`), strings.Index(readFile(t, path), `"label":"b"`); j > i {
		t.Errorf("B finished first, so its frame should come first")
	}

	p := replay(t, path, Options{})
	b := call(t, p, rootParent(), req("b", "look at B"), mustNotRun(t))
	a := call(t, p, rootParent(), req("a", "look at A"), mustNotRun(t))
	if diff := cmp.Diff([]string{string(textResult("A's answer").Output), string(textResult("B's answer").Output)}, []string{string(a.Output), string(b.Output)}); diff != "" {
		t.Errorf("replayed outputs (-want +got):\n%s", diff)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

type codedError struct{ msg, code string }

func (e codedError) Error() string     { return e.msg }
func (e codedError) ErrorCode() string { return e.code }
func (e codedError) ErrorName() string { return "ToolError" }

// Every outcome kind is recorded and replayed as what the recording parent
// got: results and errors alike, errors reduced to name, message and code.
func TestOutcomes(t *testing.T) {
	type tc struct {
		name  string
		child func(cancel func()) Child
		kind  string
		res   *Result
		err   *RecordedError
	}
	for _, c := range []tc{
		{"result", func(func()) Child { return returns(textResult("done")) }, OutcomeResult, ptr(textResult("done")), nil},
		{"start error", func(func()) Child {
			return func(context.Context, *Run) (Result, error) { return Result{}, errors.New("no such agent") }
		}, OutcomeStartError, nil, &RecordedError{Name: "Error", Message: "no such agent"}},
		{"result error", func(func()) Child {
			return func(_ context.Context, run *Run) (Result, error) {
				run.Started()
				return Result{}, codedError{"tool failed", "E_TOOL"}
			}
		}, OutcomeResultError, nil, &RecordedError{Name: "ToolError", Message: "tool failed", Code: "E_TOOL"}},
		{"abort before start", func(cancel func()) Child {
			return func(ctx context.Context, _ *Run) (Result, error) { cancel(); return Result{}, ctx.Err() }
		}, OutcomeAbortBeforeStart, nil, &RecordedError{Name: "AbortError", Message: "context canceled"}},
		{"abort after start", func(cancel func()) Child {
			return func(ctx context.Context, run *Run) (Result, error) {
				run.Started()
				cancel()
				return Result{}, ctx.Err()
			}
		}, OutcomeAbortAfterStart, &Result{Output: json.RawMessage("[]"), StopReason: "aborted"}, nil},
		{"dispose", func(func()) Child {
			return func(_ context.Context, run *Run) (Result, error) { run.Started(); return Result{}, ErrDisposed }
		}, OutcomeDispose, &Result{Output: json.RawMessage("[]"), StopReason: "aborted"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := cassettePath(t)
			var recRes Result
			var recErr error
			record(t, path, Options{}, func(r *Recorder) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				recRes, recErr = r.Call(ctx, rootParent(), req("x", "p"), c.child(cancel))
			})
			cas, err := Load(path)
			if err != nil {
				t.Fatal(err)
			}
			if got := cas.Interactions[0].Outcome.Kind; got != c.kind {
				t.Errorf("recorded kind = %q, want %q", got, c.kind)
			}
			p := replay(t, path, Options{})
			res, err := p.Call(context.Background(), rootParent(), req("x", "p"), mustNotRun(t))
			check := func(side string, res Result, err error) {
				if c.res != nil {
					if err != nil || string(res.Output) != string(c.res.Output) || res.StopReason != c.res.StopReason {
						t.Errorf("%s = %s %q %v, want %s %q", side, res.Output, res.StopReason, err, c.res.Output, c.res.StopReason)
					}
					return
				}
				var re *RecordedError
				if side == "replay" && !errors.As(err, &re) {
					t.Fatalf("%s error = %T %v, want a *RecordedError", side, err, err)
				}
				if side == "replay" {
					if diff := cmp.Diff(c.err, re); diff != "" {
						t.Errorf("replayed error (-want +got):\n%s", diff)
					}
				} else if err == nil {
					t.Errorf("record returned no error")
				}
			}
			check("record", recRes, recErr)
			check("replay", res, err)
		})
	}
}

// An identical request twice: with different outcomes the default policy
// refuses the cassette, "sequence" serves them in occurrence order, and a
// third call finds the group exhausted. Identical outcomes replay under
// either policy.
func TestDuplicatePolicy(t *testing.T) {
	path := cassettePath(t)
	record(t, path, Options{}, func(r *Recorder) {
		call(t, r, rootParent(), req("x", "same"), returns(textResult("first")))
		call(t, r, rootParent(), req("x", "same"), returns(textResult("second")))
	})
	_, err := Replay(path, Options{})
	wantErr(t, err, "identical requests were recorded with different outcomes")

	p := replay(t, path, Options{DuplicatePolicy: PolicySequence})
	for _, want := range []string{"first", "second"} {
		if got := call(t, p, rootParent(), req("x", "same"), nil); string(got.Output) != string(textResult(want).Output) {
			t.Errorf("got %s, want %s", got.Output, want)
		}
	}
	_, err = p.Call(context.Background(), rootParent(), req("x", "same"), nil)
	var me *MismatchError
	if !errors.As(err, &me) || me.Diagnostic.Reason != ReasonGroupExhausted {
		t.Fatalf("third call: %v, want %s", err, ReasonGroupExhausted)
	}

	same := cassettePath(t)
	record(t, same, Options{}, func(r *Recorder) {
		call(t, r, rootParent(), req("x", "same"), returns(textResult("one")))
		call(t, r, rootParent(), req("x", "same"), returns(textResult("one")))
	})
	p = replay(t, same, Options{})
	call(t, p, rootParent(), req("x", "same"), nil)
	call(t, p, rootParent(), req("x", "same"), nil)
	if err := p.Close(); err != nil {
		t.Error(err)
	}
}

// Recorded timing waits the start latency and the rest of the duration,
// divided by speed; a parent that cancels during the wait gets an abort.
func TestTimingRecorded(t *testing.T) {
	path := cassettePath(t)
	clk := newClock(100 * time.Millisecond) // t0, Started, end: 100 ms apart
	record(t, path, Options{Now: clk.now}, func(r *Recorder) {
		call(t, r, rootParent(), req("x", "p"), returns(textResult("ok")))
	})
	var slept []time.Duration
	sleep := func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return nil }
	p := replay(t, path, Options{Timing: TimingRecorded, Speed: 2, Sleep: sleep})
	call(t, p, rootParent(), req("x", "p"), nil)
	if diff := cmp.Diff([]time.Duration{50 * time.Millisecond, 50 * time.Millisecond}, slept); diff != "" {
		t.Errorf("sleeps (-want +got):\n%s", diff)
	}

	slept = nil
	p = replay(t, path, Options{}) // instant: no sleep at all
	call(t, p, rootParent(), req("x", "p"), nil)
	if len(slept) != 0 {
		t.Errorf("instant timing slept %v", slept)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancelling := func(context.Context, time.Duration) error { cancel(); return context.Canceled }
	p = replay(t, path, Options{Timing: TimingRecorded, Sleep: cancelling})
	_, err := p.Call(ctx, rootParent(), req("x", "p"), nil)
	var re *RecordedError
	if !errors.As(err, &re) || re.Name != "AbortError" {
		t.Errorf("cancelled during the start latency: %v, want an AbortError", err)
	}

	n := 0
	late := func(ctx context.Context, d time.Duration) error {
		if n++; n == 2 {
			return context.Canceled
		}
		return nil
	}
	p = replay(t, path, Options{Timing: TimingRecorded, Sleep: late})
	res, err := p.Call(context.Background(), rootParent(), req("x", "p"), nil)
	if err != nil || res.StopReason != StopAborted {
		t.Errorf("cancelled after the start: %v %v, want the aborted result", res, err)
	}
}

func TestAssertConsumed(t *testing.T) {
	path := cassettePath(t)
	var outer string
	record(t, path, Options{}, func(r *Recorder) {
		call(t, r, rootParent(), req("outer", "p"), func(ctx context.Context, run *Run) (Result, error) {
			run.Started()
			outer = run.Key
			// the child starts a child of its own
			call(t, r, Parent{Path: run.Key, Depth: 1}, req("inner", "q"), returns(textResult("in")))
			return textResult("out"), nil
		})
		call(t, r, rootParent(), req("other", "p"), returns(textResult("o")))
	})
	p := replay(t, path, Options{})
	call(t, p, rootParent(), req("outer", "p"), nil)
	if diff := cmp.Diff([]string{CallKey(Root, "other", mustFP(ContextFingerprint(rootParent())), mustFP(RequestFingerprint(req("other", "p"))), 1)}, p.Unconsumed()); diff != "" {
		t.Errorf("unconsumed: the inner call under a replayed one does not count (-want +got):\n%s", diff)
	}
	wantErr(t, p.Close(), "1 recorded calls were not replayed")
	if !strings.HasPrefix(outer, "root/outer-") || !strings.HasSuffix(outer, "~1") {
		t.Errorf("key %q, want root/outer-<hex>~1", outer)
	}

	p = replay(t, path, Options{AssertConsumed: ptr(false)})
	if err := p.Close(); err != nil {
		t.Errorf("assertConsumed false: %v", err)
	}
}

func mustFP(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

func TestRecordRefusesUnknownParent(t *testing.T) {
	r, err := Record(cassettePath(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ran := false
	_, err = r.Call(context.Background(), Parent{Path: "root/elsewhere-000000000000~1"}, req("x", "p"), func(context.Context, *Run) (Result, error) {
		ran = true
		return Result{}, nil
	})
	wantErr(t, err, "one root per cassette")
	if ran {
		t.Error("the child ran under an unknown parent")
	}
}

// Close while a child still runs keeps the recording unpublished.
func TestCloseWhileRunning(t *testing.T) {
	path := cassettePath(t)
	r, err := Record(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	running, release := make(chan struct{}), make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		r.Call(context.Background(), rootParent(), req("x", "p"), func(_ context.Context, run *Run) (Result, error) {
			run.Started()
			close(running)
			<-release
			return textResult("late"), nil
		})
	}()
	<-running
	wantErr(t, r.Close(), "1 calls still running")
	close(release)
	<-done
	if _, err := Load(path); err == nil {
		t.Error("a recording closed mid-call was published")
	}
}

// Concurrent replayed calls each get their own outcome (run with -race).
func TestConcurrentReplay(t *testing.T) {
	path := cassettePath(t)
	const n = 8
	labels := make([]string, n)
	record(t, path, Options{}, func(r *Recorder) {
		var wg sync.WaitGroup
		for i := range n {
			labels[i] = string(rune('a' + i))
			wg.Add(1)
			go func() {
				defer wg.Done()
				call(t, r, rootParent(), req(labels[i], "p"), returns(textResult(labels[i])))
			}()
		}
		wg.Wait()
	})
	p := replay(t, path, Options{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := p.Call(context.Background(), rootParent(), req(labels[i], "p"), nil)
			if err != nil || string(res.Output) != string(textResult(labels[i]).Output) {
				t.Errorf("%s: %s %v", labels[i], res.Output, err)
			}
		}()
	}
	wg.Wait()
	if err := p.Close(); err != nil {
		t.Error(err)
	}
}

// Record hands the parent what replay will: the output in canonical form,
// and an error for a child that returned without ever starting.
func TestRecordYieldsWhatReplayServes(t *testing.T) {
	path := cassettePath(t)
	var recorded Result
	var silentErr error
	record(t, path, Options{}, func(r *Recorder) {
		recorded = call(t, r, rootParent(), req("x", "p"), returns(Result{Output: json.RawMessage(`{ "b": 1, "a": [2, 1.50] }`), StopReason: "end_turn"}))
		_, silentErr = r.Call(context.Background(), rootParent(), req("y", "p"), func(context.Context, *Run) (Result, error) { return Result{}, nil })
	})
	if want := `{"a":[2,1.50],"b":1}`; string(recorded.Output) != want {
		t.Errorf("record yielded %s, want %s", recorded.Output, want)
	}
	wantErr(t, silentErr, "the child returned without starting")
	p := replay(t, path, Options{})
	if got := call(t, p, rootParent(), req("x", "p"), nil); string(got.Output) != string(recorded.Output) {
		t.Errorf("replay served %s, record yielded %s", got.Output, recorded.Output)
	}
	_, err := p.Call(context.Background(), rootParent(), req("y", "p"), nil)
	wantErr(t, err, "the child returned without starting")
}
