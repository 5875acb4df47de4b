package agent

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// barrier releases its waiters once n of them have arrived.
type barrier struct {
	mu      sync.Mutex
	n       int
	release chan struct{}
}

func newBarrier(n int) *barrier { return &barrier{n: n, release: make(chan struct{})} }

// gate is an attempt that waits at the barrier (or for cancellation), then
// runs next: two gated children can only finish if they run concurrently.
func (b *barrier) gate(next attempt) attempt {
	return func(ctx context.Context, req model.Request, emit func(model.Chunk) error) error {
		b.mu.Lock()
		b.n--
		if b.n == 0 {
			close(b.release)
		}
		b.mu.Unlock()
		select {
		case <-b.release:
		case <-ctx.Done():
			return ctx.Err()
		}
		return next(ctx, req, emit)
	}
}

func TestSubagentPairRunsConcurrently(t *testing.T) {
	b := newBarrier(2)
	sc := newScript(
		use(call("t1", "task", map[string]any{"description": "A", "prompt": "read a.txt"}),
			call("t2", "task", map[string]any{"description": "B", "prompt": "try bash"})),
		say("both done"),
	).route("t1",
		b.gate(use(call("r1", "read_file", map[string]any{"path": "a.txt"}))),
		say("A says hi"),
	).route("t2",
		b.gate(use(call("x1", "bash", map[string]any{"command": "true"}))),
		say("B report"),
	)
	r := newRig(t, sc.provider(), nil, nil)
	seed(t, r.cwd, map[string]string{"a.txt": "hi from a"})
	sid := r.session(acp.ClientCapabilities{Terminal: true, Fs: acp.FileSystemCapabilities{ReadTextFile: true}})
	r.mustPrompt(sid, "investigate", acp.StopReasonEndTurn)

	if diff := cmp.Diff([]string{"t1: A says hi", "t2: B report"}, toolMessages(sc.requests())); diff != "" {
		t.Errorf("task results the model saw (-want +got):\n%s", diff)
	}
	children := map[string]string{} // spawnedBy → child session id
	for _, req := range sc.requests() {
		if req.SpawnedBy == "" {
			continue
		}
		children[req.SpawnedBy] = req.SessionID
		var names []string
		for _, tl := range req.Tools {
			names = append(names, tl.Name)
		}
		if diff := cmp.Diff([]string{"read_file", "list_dir", "fetch"}, names); diff != "" {
			t.Errorf("child tools (-want +got):\n%s", diff)
		}
	}
	for _, req := range sc.requests() {
		if req.SpawnedBy == "t2" && len(req.Messages) == 3 && req.Messages[2].Content != `unknown tool "bash"` {
			t.Errorf("child t2 saw %q for bash, want an unknown-tool error", req.Messages[2].Content)
		}
		if req.SpawnedBy == "t1" && len(req.Messages) == 3 && req.Messages[2].Content != "hi from a" {
			t.Errorf("child t1 read %q, want the local file (children never use client fs)", req.Messages[2].Content)
		}
	}

	for _, u := range r.client.summary() {
		if !strings.HasPrefix(u, sid+" ") || strings.HasPrefix(u, sid+" message A") || strings.Contains(u, " r1 ") || strings.Contains(u, " x1 ") {
			t.Errorf("the client saw a child's update: %s", u)
		}
	}

	l := r.log(sid)
	wantDesc := []subagentData{{Turn: 1, CallID: "t1", ChildSession: children["t1"]}, {Turn: 1, CallID: "t2", ChildSession: children["t2"]}}
	if diff := cmp.Diff(wantDesc, data[subagentData](t, l, "subagent/descriptor")); diff != "" {
		t.Errorf("subagent/descriptor (-want +got):\n%s", diff)
	}
	wantOrder := []string{"tool/call", "tool/call", "subagent/descriptor", "subagent/descriptor", "tool/result", "tool/result"}
	var got []string
	for _, typ := range types(l) {
		if strings.HasPrefix(typ, "tool/") || typ == "subagent/descriptor" {
			got = append(got, typ)
		}
	}
	if diff := cmp.Diff(wantOrder, got); diff != "" {
		t.Errorf("primary tool events (-want +got):\n%s", diff)
	}

	var created []int64
	for i, call := range []string{"t1", "t2"} {
		cl := r.log(children[call])
		want := sessionlog.Header{Type: "session", Version: 1, ID: children[call], CreatedAt: cl.Header.CreatedAt, Cwd: r.cwd,
			DelegationDepth: 1, ParentSession: sid, Origin: "subagent", SpawnedBy: call}
		if diff := cmp.Diff(want, cl.Header); diff != "" {
			t.Errorf("child %d header (-want +got):\n%s", i+1, diff)
		}
		created = append(created, cl.Header.CreatedAt)
		checkTurnEnds(t, cl, endReason{Kind: "completed"})
		if n := len(data[stepData](t, cl, "step/start")); n != 2 {
			t.Errorf("child %d ran %d steps, want 2", i+1, n)
		}
	}
	if !(l.Header.CreatedAt < created[0] && created[0] < created[1]) {
		t.Errorf("createdAt primary %d, children %v: want strictly increasing in spawn order", l.Header.CreatedAt, created)
	}
	entries, _ := os.ReadDir(r.cfg.SessionsDir)
	if len(entries) != 3 {
		t.Errorf("%d session dirs, want 3", len(entries))
	}
}

func TestCancelReachesSubagents(t *testing.T) {
	ready := make(chan struct{})
	sc := newScript(use(call("t1", "task", map[string]any{"description": "A", "prompt": "wait"}))).route("t1", hang(ready))
	r := newRig(t, sc.provider(), nil, nil)
	sid := r.session(acp.ClientCapabilities{})
	r.cancelWhen(sid, func() { <-ready })
	l := r.log(sid)
	desc := data[subagentData](t, l, "subagent/descriptor")
	if len(desc) != 1 {
		t.Fatalf("%d subagent/descriptor events, want 1", len(desc))
	}
	aborted := endReason{Kind: "aborted", By: "user"}
	checkTurnEnds(t, r.log(desc[0].ChildSession), aborted)
	checkTurnEnds(t, l, aborted)
	results := data[toolResultData](t, l, "tool/result")
	if !slices.Equal([]string{"cancelled"}, []string{results[0].Content}) || !results[0].Error {
		t.Errorf("task result = %+v, want a cancelled error", results)
	}
}

func TestTaskErrors(t *testing.T) {
	sc := newScript(use(
		call("t1", "task", map[string]any{"description": "no prompt"}),
		call("t2", "task", map[string]any{"description": "ok", "prompt": "p"}),
		call("t3", "task", map[string]any{"description": "fails", "prompt": "p"})), say("done")).
		route("t2", say("fine")).
		route("t3", fail("AUTH", "bad key"))
	r := newRig(t, sc.provider(), nil, nil)
	sid := r.session(acp.ClientCapabilities{})
	r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
	want := []string{"t1: prompt is required", "t2: fine", "t3: subagent failed: bad key"}
	if diff := cmp.Diff(want, toolMessages(sc.requests())); diff != "" {
		t.Errorf("task results (-want +got):\n%s", diff)
	}
	l := r.log(sid)
	desc := data[subagentData](t, l, "subagent/descriptor")
	if len(desc) != 2 {
		t.Fatalf("%d children spawned, want 2", len(desc))
	}
	checkTurnEnds(t, r.log(desc[1].ChildSession), endReason{Kind: "error", Message: "bad key", Code: "AUTH"})
	var errs []bool
	for _, res := range data[toolResultData](t, l, "tool/result") {
		errs = append(errs, res.Error)
	}
	if diff := cmp.Diff([]bool{true, false, true}, errs); diff != "" {
		t.Errorf("tool/result error flags in call order (-want +got):\n%s", diff)
	}
}
