package harness_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/internal/harness"
)

// TestEnvironRoundTrip: what the harness gives an agent is what
// agentenv.Load reads back.
func TestEnvironRoundTrip(t *testing.T) {
	h := harness.AgentEnv{
		Mode: agentenv.Replay, SessionsDir: "/r/sessions", Permission: "ask",
		Fixture: "/c/session.jsonl", FixtureChildren: []string{"/c/session.1.jsonl", "/c/session.2.jsonl"},
		Override: "/c/replay.override.json", Home: "/r/home", TmpDir: "/r/tmp",
		Env:     map[string]string{"B": "2", "A": "1"},
		Secrets: map[string]string{"DEEPSEEK_API_KEY": "sk-x"},
		From:    []string{"PATH=/bin", "LANG=C", "DEEPSEEK_API_KEY=sk-host", "OTHER=x"},
	}
	env := h.Environ()
	want := []string{"PATH=/bin", "LANG=C.UTF-8", "TZ=UTC", "HOME=/r/home", "TMPDIR=/r/tmp", "A=1", "B=2",
		"ACPSNAP_MODE=replay", "ACPSNAP_SESSIONS_DIR=/r/sessions", "ACPSNAP_PERMISSION=ask",
		"ACPSNAP_FIXTURE=/c/session.jsonl", "ACPSNAP_FIXTURE_CHILDREN=/c/session.1.jsonl:/c/session.2.jsonl",
		"ACPSNAP_OVERRIDE=/c/replay.override.json"}
	if d := cmp.Diff(want, env); d != "" {
		t.Errorf("replay environment (-want +got):\n%s", d)
	}
	got, err := agentenv.Load(getenv(env))
	if err != nil {
		t.Fatal(err)
	}
	wantAgent := agentenv.Agent{Mode: "replay", SessionsDir: "/r/sessions", Permission: "ask", Fixture: "/c/session.jsonl",
		FixtureChildren: []string{"/c/session.1.jsonl", "/c/session.2.jsonl"}, Override: "/c/replay.override.json"}
	if d := cmp.Diff(wantAgent, got); d != "" {
		t.Errorf("Load (-want +got):\n%s", d)
	}
	h.Mode = agentenv.Record
	if env := strings.Join(h.Environ(), "\n"); !strings.Contains(env, "DEEPSEEK_API_KEY=sk-x") || strings.Contains(env, "sk-host") {
		t.Errorf("record environment must carry the given secret and never the host's:\n%s", env)
	}
}

func getenv(env []string) func(string) string {
	return func(k string) string {
		for _, kv := range env {
			if name, v, ok := strings.Cut(kv, "="); ok && name == k {
				return v
			}
		}
		return ""
	}
}
