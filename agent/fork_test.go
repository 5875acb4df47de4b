package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// TestForkSession: a fork is a new primary session with a new id and a
// log of its own that starts with the parent's events; nothing is
// replayed to the client, the fork's first model call carries the
// parent's history, and the two sessions go on apart.
func TestForkSession(t *testing.T) {
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte("buy milk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sc := newScript(use(call("c1", "read_file", map[string]any{"path": "notes.txt"})), say("Milk."), say("Forked."), say("Original."))
	r := newRigAt(t, sc.provider(), nil, nil, cwd)
	sid := r.session(acp.ClientCapabilities{})
	r.mustPrompt(sid, "Read notes.txt.", acp.StopReasonEndTurn)
	before := len(r.client.summary())
	resp, err := r.conn.UnstableForkSession(r.ctx(), acp.UnstableForkSessionRequest{SessionId: acp.SessionId(sid), Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	fid := string(resp.SessionId)
	if fid == "" || fid == sid {
		t.Fatalf("fork id %q, want a new one (parent %q)", fid, sid)
	}
	if resp.Modes == nil || resp.Modes.CurrentModeId != PermissionAuto {
		t.Errorf("session/fork modes = %+v, want current mode auto", resp.Modes)
	}
	if got := r.client.summary()[before:]; len(got) != 0 {
		t.Errorf("the fork replayed %q to the client, want nothing", got)
	}
	r.mustPrompt(fid, "And then?", acp.StopReasonEndTurn)
	r.mustPrompt(sid, "Anything else?", acp.StopReasonEndTurn)

	reqs := sc.requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4", len(reqs))
	}
	for _, tc := range []struct {
		name string
		call int
		want []string
	}{
		{"fork", 2, []string{"user:Read notes.txt.", "assistant:", "tool:buy milk\n", "assistant:Milk.", "user:And then?"}},
		{"parent", 3, []string{"user:Read notes.txt.", "assistant:", "tool:buy milk\n", "assistant:Milk.", "user:Anything else?"}},
	} {
		var got []string
		for _, m := range reqs[tc.call].Messages {
			got = append(got, m.Role+":"+m.Content)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("history of the %s's call (-want +got):\n%s", tc.name, diff)
		}
		if reqs[tc.call].SessionID != map[string]string{"fork": fid, "parent": sid}[tc.name] {
			t.Errorf("%s's call made for session %q", tc.name, reqs[tc.call].SessionID)
		}
	}

	parent, fork := r.log(sid), r.log(fid)
	if fork.Header.ID != fid || fork.Header.ParentSession != "" || fork.Header.CreatedAt <= parent.Header.CreatedAt {
		t.Errorf("fork header %+v, want id %s, top-level, created after the parent (%d)", fork.Header, fid, parent.Header.CreatedAt)
	}
	pt, ft := types(parent), types(fork)
	n := len(pt) / 2 // each log: the first turn, then its own second one
	if diff := cmp.Diff(pt[:n], ft[:n]); diff != "" {
		t.Errorf("the fork's log does not start with the parent's events (-want +got):\n%s", diff)
	}
	for i := range n {
		if string(parent.Events[i].Data) != string(fork.Events[i].Data) {
			t.Errorf("event %d: fork %s, parent %s", i, fork.Events[i].Data, parent.Events[i].Data)
		}
	}
	wantTurns := []turnData{{Turn: 1}, {Turn: 2}}
	for name, l := range map[string]*sessionlog.Log{"parent": parent, "fork": fork} {
		if diff := cmp.Diff(wantTurns, data[turnData](t, l, evTurnStart)); diff != "" {
			t.Errorf("%s's turn/start events (-want +got):\n%s", name, diff)
		}
	}
}

// TestForkSessionRefuses: a parent that cannot be forked is refused with
// -32602 and a message that says why.
func TestForkSessionRefuses(t *testing.T) {
	r := newRig(t, newScript().provider(), nil, nil)
	sid := r.session(acp.ClientCapabilities{})
	for _, tc := range []struct{ name, id, cwd, want string }{
		{"unknown", "nope", r.cwd, `unknown session \"nope\"`},
		{"climbs out", "../x", r.cwd, `unknown session \"../x\"`},
		{"other cwd", sid, t.TempDir(), "belongs to cwd"},
		{"relative cwd", sid, "rel", "cwd must be an absolute path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := r.conn.UnstableForkSession(r.ctx(), acp.UnstableForkSessionRequest{SessionId: acp.SessionId(tc.id), Cwd: tc.cwd})
			var re *acp.RequestError
			if err == nil || !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("session/fork error = %v, want -32602 containing %q", err, tc.want)
			}
		})
	}
}

// failingResume is a provider whose sessions cannot be positioned.
type failingResume struct{ model.Provider }

func (failingResume) Resume(string, *sessionlog.Log) error { return errors.New("no fixture left") }

// TestForkSessionFailedResume: a fork the provider cannot position fails
// with an internal error and leaves nothing: no open session, no log.
func TestForkSessionFailedResume(t *testing.T) {
	sc := newScript(say("Hi."))
	var dir string
	r := newRigAt(t, failingResume{sc.provider()}, nil, func(c *Config) { dir = c.SessionsDir }, t.TempDir())
	sid := r.session(acp.ClientCapabilities{})
	r.mustPrompt(sid, "Hello.", acp.StopReasonEndTurn)
	_, err := r.conn.UnstableForkSession(r.ctx(), acp.UnstableForkSessionRequest{SessionId: acp.SessionId(sid), Cwd: r.cwd})
	if err == nil || !strings.Contains(err.Error(), "no fixture left") {
		t.Fatalf("fork with a failing Resume: %v, want its error", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != sid {
		t.Errorf("sessions folder after the failed fork: %v, want only %s", entries, sid)
	}
	list, err := r.conn.ListSessions(r.ctx(), acp.ListSessionsRequest{Cwd: acp.Ptr(r.cwd)})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 {
		t.Errorf("session/list after the failed fork: %+v, want the parent only", list.Sessions)
	}
}
