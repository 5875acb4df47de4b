package agent

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/cassette/subagent"
	cassettefile "github.com/acpsnap/acpsnap/internal/cassette/subagent"
)

// tickClock advances 100ms at each reading, as the reference agent's
// recording clock does (agent/launch).
func tickClock() func() time.Time {
	var mu sync.Mutex
	t := time.Unix(0, 0)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(100 * time.Millisecond)
		return t
	}
}

// pairScript is a message with two different task calls, A (t1) and B (t2).
func pairScript() *script {
	return newScript(
		use(call("t1", "task", map[string]any{"description": "A", "prompt": "read a.txt"}),
			call("t2", "task", map[string]any{"description": "B", "prompt": "list"})),
		say("both done"),
	).route("t1", use(call("r1", "read_file", map[string]any{"path": "a.txt"})), say("alpha")).
		route("t2", say("beta"))
}

// recordCassette runs sc with a Recorder of path and returns the task
// results the model saw.
func recordCassette(t *testing.T, path string, sc *script, opts subagent.Options) []string {
	t.Helper()
	opts.Now = tickClock()
	rec, err := subagent.Record(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := newRig(t, sc.provider(), nil, func(c *Config) { c.Subagents = rec })
	seed(t, r.cwd, map[string]string{"a.txt": "alpha"})
	sid := r.session(acp.ClientCapabilities{})
	r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
	r.log(sid)
	if err := rec.Close(); err != nil {
		t.Fatalf("close the recorder: %v", err)
	}
	if n := sessionDirs(t, r.cfg.SessionsDir); n != 1 {
		t.Errorf("recording wrote %d session logs, want 1 (children behind the boundary have none)", n)
	}
	return toolMessages(sc.requests())
}

// replayRig replays path against a primary-only script.
func replayRig(t *testing.T, b subagent.Boundary, sc *script, mod func(*Config)) (*rig, string) {
	t.Helper()
	r := newRig(t, sc.provider(), nil, func(c *Config) {
		c.Subagents = b
		if mod != nil {
			mod(c)
		}
	})
	return r, r.session(acp.ClientCapabilities{})
}

func sessionDirs(t *testing.T, dir string) int {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// primaryOnly is sc without its child routes: a replayed child that asked
// the model would fail with "no attempt".
func primaryOnly(sc *script) *script { return newScript(sc.routes[""]...) }

func TestBoundaryRecordsThenReplaysWithoutChildren(t *testing.T) {
	path := filepath.Join(t.TempDir(), "subagents.cassette.jsonl")
	recorded := recordCassette(t, path, pairScript(), subagent.Options{})
	if diff := cmp.Diff([]string{"t1: alpha", "t2: beta"}, recorded); diff != "" {
		t.Errorf("recorded task results (-want +got):\n%s", diff)
	}
	c, err := cassettefile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var order []int
	for _, it := range c.Interactions {
		order = append(order, it.Admission)
		if it.Parent != cassettefile.Root || it.Label != "task" || it.Outcome.Kind != cassettefile.OutcomeResult {
			t.Errorf("interaction %d: parent %q label %q outcome %q", it.Admission, it.Parent, it.Label, it.Outcome.Kind)
		}
	}
	if diff := cmp.Diff([]int{1, 2}, order); diff != "" {
		t.Errorf("admissions (-want +got):\n%s", diff)
	}

	play, err := subagent.Replay(path, subagent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc := primaryOnly(pairScript())
	r, sid := replayRig(t, play, sc, nil)
	r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
	l := r.log(sid)
	if err := play.Close(); err != nil {
		t.Errorf("close the player: %v", err)
	}
	if diff := cmp.Diff(recorded, toolMessages(sc.requests())); diff != "" {
		t.Errorf("replayed task results (-want +got):\n%s", diff)
	}
	for _, req := range sc.requests() {
		if req.SpawnedBy != "" {
			t.Errorf("replay made a child model call (spawned by %s)", req.SpawnedBy)
		}
	}
	if n := len(sc.requests()); n != 2 {
		t.Errorf("replay made %d model calls, want the primary's 2", n)
	}
	if n := sessionDirs(t, r.cfg.SessionsDir); n != 1 {
		t.Errorf("replay wrote %d session logs, want 1 (no child log)", n)
	}
	want := []subagentData{{Turn: 1, CallID: "t1", Cassette: true}, {Turn: 1, CallID: "t2", Cassette: true}}
	if diff := cmp.Diff(want, data[subagentData](t, l, "subagent/descriptor")); diff != "" {
		t.Errorf("subagent/descriptor (-want +got):\n%s", diff)
	}
}

func TestBoundaryRecordingIsReproducible(t *testing.T) {
	dir := t.TempDir()
	var files [][]byte
	for _, name := range []string{"one.jsonl", "two.jsonl"} {
		path := filepath.Join(dir, name)
		recordCassette(t, path, pairScript(), subagent.Options{})
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Errorf("two recordings of one script differ:\n%s\n---\n%s", files[0], files[1])
	}
}

// completions is a Player that notes the order in which calls return.
type completions struct {
	*subagent.Player
	mu    sync.Mutex
	order []string
}

func (c *completions) Call(ctx context.Context, p subagent.Parent, r subagent.Request, child subagent.Child) (subagent.Result, error) {
	res, err := c.Player.Call(ctx, p, r, child)
	c.mu.Lock()
	c.order = append(c.order, r.Prompt)
	c.mu.Unlock()
	return res, err
}

func TestBoundaryReplaysInAnyCompletionOrder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "subagents.cassette.jsonl")
	recorded := recordCassette(t, path, pairScript(), subagent.Options{})
	// Recorded A then B on the logical clock: A lasted 400ms, B 300ms, so
	// with timing recorded B completes first.
	play, err := subagent.Replay(path, subagent.Options{Timing: cassettefile.TimingRecorded})
	if err != nil {
		t.Fatal(err)
	}
	b := &completions{Player: play}
	sc := primaryOnly(pairScript())
	r, sid := replayRig(t, b, sc, nil)
	r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
	r.log(sid)
	if err := b.Close(); err != nil {
		t.Error(err)
	}
	if diff := cmp.Diff([]string{"list", "read a.txt"}, b.order); diff != "" {
		t.Errorf("completion order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(recorded, toolMessages(sc.requests())); diff != "" {
		t.Errorf("each call got its own outcome (-want +got):\n%s", diff)
	}
}

// twinScript asks the same task twice in one message; the children answer
// differently.
func twinScript() *script {
	args := map[string]any{"description": "same", "prompt": "count"}
	return newScript(use(call("t1", "task", args), call("t2", "task", args)), say("done")).
		route("t1", say("first")).route("t2", say("second"))
}

func TestBoundaryDuplicatePolicy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "subagents.cassette.jsonl")
	recorded := recordCassette(t, path, twinScript(), subagent.Options{})
	if diff := cmp.Diff([]string{"t1: first", "t2: second"}, recorded); diff != "" {
		t.Fatalf("recorded (-want +got):\n%s", diff)
	}
	if _, err := subagent.Replay(path, subagent.Options{}); err == nil || !strings.Contains(err.Error(), "sequence") {
		t.Errorf("replay under duplicatePolicy reject: %v, want a refusal naming the sequence policy", err)
	}
	for range 3 { // occurrences follow call order, not the scheduler
		play, err := subagent.Replay(path, subagent.Options{DuplicatePolicy: cassettefile.PolicySequence})
		if err != nil {
			t.Fatal(err)
		}
		sc := primaryOnly(twinScript())
		r, sid := replayRig(t, play, sc, nil)
		r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
		r.log(sid)
		if err := play.Close(); err != nil {
			t.Error(err)
		}
		if diff := cmp.Diff(recorded, toolMessages(sc.requests())); diff != "" {
			t.Errorf("sequence replay (-want +got):\n%s", diff)
		}
	}
}

func TestBoundaryReplaysAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "subagents.cassette.jsonl")
	mk := func() *script {
		return newScript(use(call("t1", "task", map[string]any{"description": "x", "prompt": "p"})), say("done")).
			route("t1", fail("AUTH", "bad key"))
	}
	recorded := recordCassette(t, path, mk(), subagent.Options{})
	if diff := cmp.Diff([]string{"t1: subagent failed: bad key"}, recorded); diff != "" {
		t.Fatalf("recorded (-want +got):\n%s", diff)
	}
	c, err := cassettefile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if o := c.Interactions[0].Outcome; o.Kind != cassettefile.OutcomeResultError || o.Error.Name != errTurn || o.Error.Code != "AUTH" {
		t.Errorf("recorded outcome %+v, want a result error", o)
	}
	play, err := subagent.Replay(path, subagent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc := primaryOnly(mk())
	r, sid := replayRig(t, play, sc, nil)
	r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
	l := r.log(sid)
	if diff := cmp.Diff(recorded, toolMessages(sc.requests())); diff != "" {
		t.Errorf("replayed (-want +got):\n%s", diff)
	}
	res := data[toolResultData](t, l, "tool/result")
	if len(res) != 1 || !res[0].Error {
		t.Errorf("tool/result %+v, want one error", res)
	}
	if err := play.Close(); err != nil {
		t.Error(err)
	}
}

func TestBoundaryMisses(t *testing.T) {
	path := filepath.Join(t.TempDir(), "subagents.cassette.jsonl")
	recordCassette(t, path, pairScript(), subagent.Options{})
	changed := newScript(
		use(call("t1", "task", map[string]any{"description": "A", "prompt": "read b.txt"}),
			call("t2", "task", map[string]any{"description": "B", "prompt": "list"})),
		say("both done"))
	for _, tc := range []struct {
		name   string
		sc     *script
		mod    func(*Config)
		reason string
	}{
		{"request-changed", changed, nil, cassettefile.ReasonRequestChanged},
		{"parent-context-changed", primaryOnly(pairScript()), func(c *Config) { c.Permission = PermissionAsk }, cassettefile.ReasonParentContextChanged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			play, err := subagent.Replay(path, subagent.Options{})
			if err != nil {
				t.Fatal(err)
			}
			r, sid := replayRig(t, play, tc.sc, tc.mod)
			r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
			r.log(sid)
			got := toolMessages(tc.sc.requests())
			if len(got) == 0 || !strings.Contains(got[0], "CASSETTE_MISMATCH") || !strings.Contains(got[0], tc.reason) {
				t.Errorf("t1's result %q, want the cassette's %s diagnostic", got, tc.reason)
			}
			for _, m := range got {
				if strings.Contains(m, "read a.txt") || strings.Contains(m, "alpha") {
					t.Errorf("a miss showed a prompt or a result: %q", m)
				}
			}
			err = play.Close()
			var me *subagent.MismatchError
			if err == nil || errors.As(err, &me) || !strings.Contains(err.Error(), "not replayed") {
				t.Errorf("Close = %v, want the unconsumed recorded call", err)
			}
			if n := sessionDirs(t, r.cfg.SessionsDir); n != 1 {
				t.Errorf("%d session logs, want 1", n)
			}
		})
	}
}

func TestBoundaryRecordsACancel(t *testing.T) {
	path := filepath.Join(t.TempDir(), "subagents.cassette.jsonl")
	rec, err := subagent.Record(path, subagent.Options{Now: tickClock()})
	if err != nil {
		t.Fatal(err)
	}
	ready := make(chan struct{})
	sc := newScript(use(call("t1", "task", map[string]any{"description": "A", "prompt": "wait"}))).route("t1", hang(ready))
	r := newRig(t, sc.provider(), nil, func(c *Config) { c.Subagents = rec })
	sid := r.session(acp.ClientCapabilities{})
	r.cancelWhen(sid, func() { <-ready })
	l := r.log(sid)
	checkTurnEnds(t, l, endReason{Kind: "aborted", By: "user"})
	if res := data[toolResultData](t, l, "tool/result"); len(res) != 1 || res[0].Content != "cancelled" || !res[0].Error {
		t.Errorf("task result %+v, want a cancelled error", res)
	}
	if err := rec.Close(); err != nil {
		t.Fatalf("close the recorder: %v", err)
	}
	c, err := cassettefile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Interactions) != 1 || c.Interactions[0].Outcome.Kind != cassettefile.OutcomeAbortAfterStart {
		t.Fatalf("recorded %+v, want one abort after start", c.Interactions)
	}
	// Replayed, the aborted child is the same "cancelled" error result.
	play, err := subagent.Replay(path, subagent.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc = newScript(use(call("t1", "task", map[string]any{"description": "A", "prompt": "wait"})), say("gave up"))
	r2, sid2 := replayRig(t, play, sc, nil)
	r2.mustPrompt(sid2, "go", acp.StopReasonEndTurn)
	r2.log(sid2)
	if diff := cmp.Diff([]string{"t1: cancelled"}, toolMessages(sc.requests())); diff != "" {
		t.Errorf("replayed (-want +got):\n%s", diff)
	}
	if err := play.Close(); err != nil {
		t.Error(err)
	}
}

func TestBoundaryRendering(t *testing.T) {
	type result struct {
		Content string
		Err     bool
	}
	miss := &subagent.MismatchError{Diagnostic: subagent.Diagnostic{Reason: cassettefile.ReasonParentNotFound, Parent: "root", Label: "task"}}
	for _, tc := range []struct {
		name string
		res  subagent.Result
		err  error
		want result
	}{
		{"text", subagent.Result{Output: []byte(`"found it"`), StopReason: "end_turn"}, nil, result{"found it", false}},
		{"empty", subagent.Result{Output: []byte(`""`), StopReason: "end_turn"}, nil, result{"(the subagent gave no answer)", false}},
		{"not a string", subagent.Result{Output: []byte(`{"n":1}`)}, nil, result{`{"n":1}`, false}},
		{"aborted", subagent.Result{Output: []byte(`[]`), StopReason: subagent.StopAborted}, nil, result{"cancelled", true}},
		{"turn error", subagent.Result{}, &subagent.RecordedError{Name: errTurn, Message: "bad key", Code: "AUTH"}, result{"subagent failed: bad key", true}},
		{"start error", subagent.Result{}, &subagent.RecordedError{Name: errStart, Message: "agent is shutting down"}, result{"agent is shutting down", true}},
		{"abort before start", subagent.Result{}, &subagent.RecordedError{Name: "AbortError", Message: "aborted"}, result{"cancelled", true}},
		{"miss", subagent.Result{}, miss, result{miss.Error(), true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, e := rendered(tc.res, tc.err, nil)
			if diff := cmp.Diff(tc.want, result{c, e}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
