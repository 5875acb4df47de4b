package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
)

// TestLoadSessionAfterRestart: a second agent over the same sessions
// folder lists the session, loads it (the conversation replayed as
// updates), and its next model call carries the whole history; the log
// goes on where it ended.
func TestLoadSessionAfterRestart(t *testing.T) {
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("buy milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	first := newRigAt(t, newScript(use(call("c1", "read_file", map[string]any{"path": "notes.txt"})), say("Milk.")).provider(), nil, nil, cwd)
	sid := first.session(acp.ClientCapabilities{})
	first.mustPrompt(sid, "Read   notes.txt.", acp.StopReasonEndTurn)
	first.log(sid) // closes the first agent

	sc := newScript(say("You asked about milk."))
	second := newRigAt(t, sc.provider(), nil, func(c *Config) { c.SessionsDir = first.cfg.SessionsDir }, cwd)
	second.init(acp.ClientCapabilities{})
	list, err := second.conn.ListSessions(second.ctx(), acp.ListSessionsRequest{Cwd: acp.Ptr(cwd)})
	if err != nil {
		t.Fatal(err)
	}
	wantList := []acp.SessionInfo{{SessionId: acp.SessionId(sid), Cwd: cwd, Title: acp.Ptr("Read notes.txt."), UpdatedAt: acp.Ptr("2023-11-14T22:13:20.000Z")}}
	if diff := cmp.Diff(wantList, list.Sessions); diff != "" {
		t.Errorf("session/list (-want +got):\n%s", diff)
	}
	resp, err := second.conn.LoadSession(second.ctx(), acp.LoadSessionRequest{SessionId: acp.SessionId(sid), Cwd: cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Modes == nil || resp.Modes.CurrentModeId != PermissionAuto {
		t.Errorf("session/load modes = %+v, want current mode auto", resp.Modes)
	}
	wantUpdates := []string{
		sid + ` other {"content":{"text":"Read   notes.txt.","type":"text"},"sessionUpdate":"user_message_chunk"}`,
		sid + ` tool_call c1 pending read "Read notes.txt"`,
		sid + ` tool_call_update c1 completed "buy milk\n"`,
		sid + " message Milk.",
	}
	if diff := cmp.Diff(wantUpdates, second.client.summary()); diff != "" {
		t.Errorf("updates of the load (-want +got):\n%s", diff)
	}
	second.mustPrompt(sid, "What did I ask?", acp.StopReasonEndTurn)
	var roles []string
	for _, m := range sc.requests()[0].Messages {
		roles = append(roles, m.Role+":"+m.Content)
	}
	wantRoles := []string{"user:Read   notes.txt.", "assistant:", "tool:buy milk\n", "assistant:Milk.", "user:What did I ask?"}
	if diff := cmp.Diff(wantRoles, roles); diff != "" {
		t.Errorf("history of the first call after the load (-want +got):\n%s", diff)
	}
	l := second.log(sid)
	turns := data[turnData](t, l, evTurnStart)
	if len(turns) != 2 || turns[1].Turn != 2 {
		t.Errorf("turn/start events %+v, want turns 1 and 2 in one log", turns)
	}
}

// TestLoadSessionRefuses: what cannot be loaded is refused with -32602
// and a message that says why.
func TestLoadSessionRefuses(t *testing.T) {
	r := newRig(t, newScript().provider(), nil, nil)
	sid := r.session(acp.ClientCapabilities{})
	other := t.TempDir()
	for _, tc := range []struct{ name, id, cwd, want string }{
		{"unknown", "nope", r.cwd, `unknown session \"nope\"`},
		{"climbs out", "../x", r.cwd, `unknown session \"../x\"`},
		{"open already", sid, r.cwd, "is open already"},
		{"relative cwd", sid, "rel", "cwd must be an absolute path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.conn.LoadSession(r.ctx(), acp.LoadSessionRequest{SessionId: acp.SessionId(tc.id), Cwd: tc.cwd, McpServers: []acp.McpServer{}})
			var re *acp.RequestError
			if err == nil || !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("session/load error = %v, want -32602 containing %q", err, tc.want)
			}
		})
	}
	r.close()
	again := newRigAt(t, newScript().provider(), nil, func(c *Config) { c.SessionsDir = r.cfg.SessionsDir }, other)
	again.init(acp.ClientCapabilities{})
	_, err := again.conn.LoadSession(again.ctx(), acp.LoadSessionRequest{SessionId: acp.SessionId(sid), Cwd: other, McpServers: []acp.McpServer{}})
	if err == nil || !strings.Contains(err.Error(), "belongs to cwd") {
		t.Errorf("load in another cwd: %v, want it refused", err)
	}
	list, err := again.conn.ListSessions(again.ctx(), acp.ListSessionsRequest{Cwd: acp.Ptr(other)})
	if err != nil || len(list.Sessions) != 0 {
		t.Errorf("session/list of another cwd = %+v, %v; want none", list.Sessions, err)
	}
}
