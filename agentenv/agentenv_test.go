package agentenv_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/agentenv"
)

func TestEnvironRoundTrip(t *testing.T) {
	h := agentenv.Harness{
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

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"ACPSNAP_MODE=bogus", `ACPSNAP_MODE="bogus": want replay, record or unset`},
		{"ACPSNAP_PERMISSION=never", `ACPSNAP_PERMISSION="never"`},
		{"ACPSNAP_MODE=replay", "no ACPSNAP_FIXTURE"},
	} {
		if _, err := agentenv.Load(getenv([]string{tc.env})); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%s) = %v, want %q", tc.env, err, tc.want)
		}
	}
	if a, err := agentenv.Load(getenv(nil)); err != nil || a.Mode != "" {
		t.Errorf("outside acpsnap: %+v, %v", a, err)
	}
}

func TestNames(t *testing.T) {
	for name, want := range map[string]bool{"HOME": true, "TMPDIR": true, "TZ": true, "ACPSNAP_X": true, "SOME_VAR": false} {
		if agentenv.Owned(name) != want {
			t.Errorf("Owned(%s) = %v", name, !want)
		}
	}
	for name, want := range map[string]bool{"OPENAI_API_KEY": true, "github_token": true, "AWS_SECRET": true, "KEYBOARD": false, "MONKEY_NAME": false} {
		if agentenv.LooksSecret(name) != want {
			t.Errorf("LooksSecret(%s) = %v", name, !want)
		}
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
