package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
)

// answerer answers permission requests with kinds in order and records
// each request as "<toolCallId> <title> [option ids]".
type answerer struct {
	mu      sync.Mutex
	answers []string // option kind, "cancelled", or "error"
	asked   []string
}

func (a *answerer) client() *fakeClient {
	return &fakeClient{RequestPermissionFunc: func(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
		a.mu.Lock()
		defer a.mu.Unlock()
		var ids []string
		for _, o := range p.Options {
			if string(o.OptionId) != string(o.Kind) {
				return acp.RequestPermissionResponse{}, errors.New("option id is not its kind")
			}
			ids = append(ids, string(o.OptionId))
		}
		a.asked = append(a.asked, string(p.ToolCall.ToolCallId)+" "+*p.ToolCall.Title+" "+fmt.Sprint(ids))
		answer := a.answers[0]
		a.answers = a.answers[1:]
		switch answer {
		case "cancelled":
			return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Cancelled: &acp.RequestPermissionOutcomeCancelled{}}}, nil
		case "error":
			return acp.RequestPermissionResponse{}, acp.NewInternalError(map[string]any{"error": "no UI"})
		}
		return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{OptionId: acp.PermissionOptionId(answer)}}}, nil
	}}
}

func TestAskMode(t *testing.T) {
	type testCase struct {
		name     string
		answers  []string
		asked    []string // tool call ids asked about
		results  []string // "callId: content" the model sees
		decided  []string // approval/decided outcomes
		existing []string // files written
	}
	w1 := call("w1", "write_file", map[string]any{"path": "one.txt", "content": "1"})
	w2 := call("w2", "write_file", map[string]any{"path": "two.txt", "content": "2"})
	b1 := call("b1", "bash", map[string]any{"command": "echo ran > ran.txt"})
	r1 := call("r1", "list_dir", map[string]any{})
	denied := "permission denied by user"
	for _, tc := range []testCase{
		{name: "allow once asks every time", answers: []string{"allow_once", "allow_once", "allow_once"},
			asked:   []string{"w1", "w2", "b1"},
			results: []string{"w1: wrote 1 bytes to one.txt", "w2: wrote 1 bytes to two.txt", "b1: (no output)", "r1: one.txt\nran.txt\ntwo.txt\n"},
			decided: []string{"allow_once", "allow_once", "allow_once"}, existing: []string{"one.txt", "two.txt", "ran.txt"}},
		{name: "allow always is remembered per tool", answers: []string{"allow_always", "reject_once"},
			asked:   []string{"w1", "b1"},
			results: []string{"w1: wrote 1 bytes to one.txt", "w2: wrote 1 bytes to two.txt", "b1: " + denied, "r1: one.txt\ntwo.txt\n"},
			decided: []string{"allow_always", "reject_once"}, existing: []string{"one.txt", "two.txt"}},
		{name: "reject once", answers: []string{"reject_once", "allow_once", "allow_once"},
			asked:   []string{"w1", "w2", "b1"},
			results: []string{"w1: " + denied, "w2: wrote 1 bytes to two.txt", "b1: (no output)", "r1: ran.txt\ntwo.txt\n"},
			decided: []string{"reject_once", "allow_once", "allow_once"}, existing: []string{"two.txt", "ran.txt"}},
		{name: "reject always is remembered", answers: []string{"reject_always", "allow_once"},
			asked:   []string{"w1", "b1"},
			results: []string{"w1: " + denied, "w2: " + denied, "b1: (no output)", "r1: ran.txt\n"},
			decided: []string{"reject_always", "allow_once"}, existing: []string{"ran.txt"}},
		{name: "cancelled outcome and client error deny", answers: []string{"cancelled", "error", "allow_once"},
			asked: []string{"w1", "w2", "b1"},
			results: []string{"w1: " + denied, `w2: permission request failed: {"code":-32603,"message":"Internal error","data":{"error":"no UI"}}`,
				"b1: (no output)", "r1: ran.txt\n"},
			decided: []string{"cancelled", "error", "allow_once"}, existing: []string{"ran.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &answerer{answers: tc.answers}
			sc := newScript(use(w1, w2, b1, r1), say("done"))
			r := newRig(t, sc.provider(), a.client(), func(c *Config) { c.Permission = PermissionAsk })
			sid := r.session(acp.ClientCapabilities{})
			r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
			var asked []string
			for _, s := range a.asked {
				asked = append(asked, s[:2])
			}
			if diff := cmp.Diff(tc.asked, asked); diff != "" {
				t.Errorf("asked about (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.results, toolMessages(sc.requests())); diff != "" {
				t.Errorf("tool results (-want +got):\n%s", diff)
			}
			for _, f := range tc.existing {
				if _, err := os.Stat(filepath.Join(r.cwd, f)); err != nil {
					t.Errorf("%s was not written: %v", f, err)
				}
			}
			l := r.log(sid)
			var decided []string
			for _, d := range data[approvalDecidedData](t, l, "approval/decided") {
				decided = append(decided, d.Outcome)
			}
			if diff := cmp.Diff(tc.decided, decided); diff != "" {
				t.Errorf("approval/decided outcomes (-want +got):\n%s", diff)
			}
			for _, res := range data[toolResultData](t, l, "tool/result") {
				if res.Content == denied && !res.Error {
					t.Errorf("denied call %s is not an error result", res.CallID)
				}
			}
		})
	}
}

func TestAskModeLogsApproval(t *testing.T) {
	a := &answerer{answers: []string{"reject_once"}}
	sc := newScript(use(call("w1", "write_file", map[string]any{"path": "x.txt", "content": "x"})), say("ok"))
	r := newRig(t, sc.provider(), a.client(), func(c *Config) { c.Permission = PermissionAsk })
	sid := r.session(acp.ClientCapabilities{})
	r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
	if diff := cmp.Diff([]string{"w1 Write x.txt [allow_once allow_always reject_once reject_always]"}, a.asked); diff != "" {
		t.Errorf("permission requests (-want +got):\n%s", diff)
	}
	l := r.log(sid)
	asked := data[approvalAskedData](t, l, "approval/asked")
	wantAsked := []approvalAskedData{{Turn: 1, CallID: "w1", ApprovalID: asked[0].ApprovalID, Options: []string{"allow_once", "allow_always", "reject_once", "reject_always"}}}
	if diff := cmp.Diff(wantAsked, asked); diff != "" || asked[0].ApprovalID == "" {
		t.Errorf("approval/asked (-want +got):\n%s", diff)
	}
	wantDecided := []approvalDecidedData{{Turn: 1, CallID: "w1", ApprovalID: asked[0].ApprovalID, Outcome: "reject_once"}}
	if diff := cmp.Diff(wantDecided, data[approvalDecidedData](t, l, "approval/decided")); diff != "" {
		t.Errorf("approval/decided (-want +got):\n%s", diff)
	}
	want := []string{"tool/call", "approval/asked", "approval/decided", "tool/result"}
	got := types(l)
	for i, typ := range got {
		if typ == "tool/call" {
			got = got[i : i+4]
			break
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("event order (-want +got):\n%s", diff)
	}
	if !slices.Contains(r.client.summary(), sid+` tool_call_update w1 failed "permission denied by user"`) {
		t.Errorf("no failed tool_call_update in %q", r.client.summary())
	}
}

func TestAutoModeNeverAsks(t *testing.T) {
	client := &fakeClient{RequestPermissionFunc: func(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
		t.Error("auto mode asked for permission")
		return acp.RequestPermissionResponse{}, errors.New("unexpected")
	}}
	sc := newScript(use(call("w1", "write_file", map[string]any{"path": "x.txt", "content": "x"}), call("b1", "bash", map[string]any{"command": "true"})), say("ok"))
	r := newRig(t, sc.provider(), client, nil)
	sid := r.session(acp.ClientCapabilities{})
	r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
	if diff := cmp.Diff([]string{"w1: wrote 1 bytes to x.txt", "b1: (no output)"}, toolMessages(sc.requests())); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
}

func TestSessionModeSwitchesPermission(t *testing.T) {
	a := &answerer{answers: []string{"reject_once"}}
	sc := newScript(use(call("w1", "write_file", map[string]any{"path": "x.txt", "content": "x"})), say("ok"))
	r := newRig(t, sc.provider(), a.client(), nil)
	r.init(acp.ClientCapabilities{})
	resp, err := r.conn.NewSession(r.ctx(), acp.NewSessionRequest{Cwd: r.cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Modes == nil || resp.Modes.CurrentModeId != PermissionAuto || len(resp.Modes.AvailableModes) != 2 {
		t.Fatalf("modes = %+v, want auto of auto/ask", resp.Modes)
	}
	_, err = r.conn.SetSessionMode(r.ctx(), acp.SetSessionModeRequest{SessionId: resp.SessionId, ModeId: "never"})
	assertRPCError(t, err, -32602, `unknown mode "never"`)
	if _, err := r.conn.SetSessionMode(r.ctx(), acp.SetSessionModeRequest{SessionId: resp.SessionId, ModeId: PermissionAsk}); err != nil {
		t.Fatal(err)
	}
	r.mustPrompt(string(resp.SessionId), "go", acp.StopReasonEndTurn)
	if len(a.asked) != 1 {
		t.Errorf("asked %d times after switching to ask, want 1", len(a.asked))
	}
}

func TestCancelDuringPermissionRequest(t *testing.T) {
	asking := make(chan struct{})
	client := &fakeClient{RequestPermissionFunc: func(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
		close(asking)
		<-ctx.Done()
		return acp.RequestPermissionResponse{}, ctx.Err()
	}}
	sc := newScript(use(call("w1", "write_file", map[string]any{"path": "x.txt", "content": "x"})))
	r := newRig(t, sc.provider(), client, func(c *Config) { c.Permission = PermissionAsk })
	sid := r.session(acp.ClientCapabilities{})
	r.cancelWhen(sid, func() { <-asking })
	l := r.log(sid)
	decided := data[approvalDecidedData](t, l, "approval/decided")
	if len(decided) != 1 || decided[0].Outcome != "cancelled" {
		t.Errorf("approval/decided = %+v, want one cancelled", decided)
	}
	checkTurnEnds(t, l, endReason{Kind: "aborted", By: "user"})
	if _, err := os.Stat(filepath.Join(r.cwd, "x.txt")); err == nil {
		t.Error("the write ran although its permission request was cancelled")
	}
}
