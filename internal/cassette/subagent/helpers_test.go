package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// clock is a fake Now that advances step on every reading.
type clock struct {
	mu   sync.Mutex
	t    time.Time
	step time.Duration
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(c.step)
	return c.t
}

func newClock(step time.Duration) *clock {
	return &clock{t: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), step: step}
}

func cassettePath(t *testing.T) string {
	t.Helper()
	return filepath.Join(t.TempDir(), "subagents.cassette.jsonl")
}

func rootParent() Parent {
	return Parent{Cwd: "$CWD", PermissionMode: "default", Tools: []string{"bash", "read", "task"}}
}

func req(label, prompt string) Request {
	return Request{Label: label, Prompt: prompt, Options: map[string]any{"model": "fixed"}}
}

func textResult(s string) Result {
	b, _ := json.Marshal(map[string]any{"text": s})
	return Result{Output: b, StopReason: "end_turn"}
}

// returns is a child that starts and returns res.
func returns(res Result) Child {
	return func(ctx context.Context, run *Run) (Result, error) {
		run.Started()
		return res, nil
	}
}

// mustNotRun is the child a replay is given: it fails the test if called.
func mustNotRun(t *testing.T) Child {
	return func(context.Context, *Run) (Result, error) {
		t.Error("the child ran during replay")
		return Result{}, errors.New("ran")
	}
}

func record(t *testing.T, path string, opts Options, calls func(r *Recorder)) {
	t.Helper()
	r, err := Record(path, opts)
	if err != nil {
		t.Fatalf("Record: %v", err)
	}
	calls(r)
	if err := r.Close(); err != nil {
		t.Fatalf("Recorder.Close: %v", err)
	}
}

func call(t *testing.T, b Boundary, p Parent, q Request, child Child) Result {
	t.Helper()
	res, err := b.Call(context.Background(), p, q, child)
	if err != nil {
		t.Fatalf("Call %s: %v", q.Label, err)
	}
	return res
}

func replay(t *testing.T, path string, opts Options) *Player {
	t.Helper()
	p, err := Replay(path, opts)
	if err != nil {
		t.Fatalf("Replay: %v", err)
	}
	return p
}

func wantErr(t *testing.T, err error, substr string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), substr) {
		t.Fatalf("error = %v, want one containing %q", err, substr)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func ptr[T any](v T) *T { return &v }
