package agent

import (
	"path/filepath"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/llmreplay"
	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// TestReplayReproducesARecording records a turn with a scripted model,
// then replays the session log through Replay(Player) in a fresh agent:
// the client must see the same updates and the log the same events.
func TestReplayReproducesARecording(t *testing.T) {
	cwd := t.TempDir()
	seed(t, cwd, map[string]string{"a.txt": "alpha"})
	sc := newScript(
		chunks(append(textChunks("let me look", model.FinishToolCalls)[:3:3], callChunks(call("c1", "read_file", map[string]any{"path": "a.txt"}))...)...),
		say("it says alpha"))
	rec := newRigAt(t, sc.provider(), nil, nil, cwd)
	sid := rec.session(acp.ClientCapabilities{})
	rec.mustPrompt(sid, "what is in a.txt?", acp.StopReasonEndTurn)
	recorded := rec.log(sid)

	player, err := llmreplay.Load(llmreplay.Config{Primary: filepath.Join(rec.cfg.SessionsDir, sid, sessionlog.FileName)})
	if err != nil {
		t.Fatal(err)
	}
	rep := newRigAt(t, Replay(player), nil, nil, cwd)
	rsid := rep.session(acp.ClientCapabilities{})
	rep.mustPrompt(rsid, "what is in a.txt?", acp.StopReasonEndTurn)
	if diff := cmp.Diff(rec.client.summary(), rep.client.summary()); diff != "" {
		t.Errorf("replayed updates (-recorded +replayed):\n%s", diff)
	}
	if diff := cmp.Diff(types(recorded), types(rep.log(rsid))); diff != "" {
		t.Errorf("replayed event types (-recorded +replayed):\n%s", diff)
	}
	for _, f := range player.Report().Fixtures {
		if f.Left != 0 || f.Served != 2 {
			t.Errorf("replay report %+v, want 2 served, 0 left", f)
		}
	}
}
