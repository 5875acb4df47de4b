package snapshots_test

import (
	"context"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// copyScenario copies the bundled scenario name into a fresh corpus and
// returns the scenario's new folder.
func copyScenario(t testing.TB, name string) string {
	t.Helper()
	root := t.TempDir()
	copyTree(t, scenario.PinsDir, filepath.Join(root, scenario.PinsDir)) // the corpus's pins come along
	dst := filepath.Join(root, name)
	copyTree(t, name, dst)
	return dst
}

// copyTree copies the folder src to dst.
func copyTree(t testing.TB, src, dst string) {
	t.Helper()
	name := src
	err := filepath.WalkDir(name, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dst, strings.TrimPrefix(path, name))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// readTree returns every file under dir with its content.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		out[strings.TrimPrefix(path, dir)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReplayNeverSeesKeys: with DEEPSEEK_* in the harness environment and in
// a .env in the agent's cwd, a replayed scenario makes zero requests to a
// trap server and the agent's environment holds no key.
func TestReplayNeverSeesKeys(t *testing.T) {
	var hits atomic.Int64
	trap := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Error(w, "trap", http.StatusTeapot)
	}))
	defer trap.Close()
	const key = "sk-trap-0123456789"
	dir := copyScenario(t, "text-turn")
	dotenv := "DEEPSEEK_API_KEY=" + key + "\nDEEPSEEK_BASE_URL=" + trap.URL + "\n"
	if err := os.MkdirAll(filepath.Join(dir, "workspace"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "workspace", ".env"), []byte(dotenv), 0o644); err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(t.TempDir(), "agent.env")
	agent := agentCommand
	cfg := check.Config{
		Settings: harness.Settings{
			Agent:   append([]string{"sh", "-c", `env > "$0" && exec "$@"`, dump}, agent...),
			Environ: append(os.Environ(), "DEEPSEEK_API_KEY="+key, "DEEPSEEK_BASE_URL="+trap.URL, "OPENAI_API_KEY="+key),
		},
	}
	o := check.Check(context.Background(), dir, cfg)
	if o.Status != check.Passed {
		t.Fatalf("replay with keys around: %s: %s\n%s", o.Status, o.Reason, o.Diff)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the trap server got %d requests; replay must never reach the network", n)
	}
	env, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(env), key) || strings.Contains(string(env), "DEEPSEEK_") {
		t.Errorf("the replaying agent's environment holds a key:\n%s", env)
	}
}

// TestFailedWriteLeavesFixtures: a refresh or record that fails midway
// leaves every committed file byte-identical.
func TestFailedWriteLeavesFixtures(t *testing.T) {
	type testCase struct {
		name   string
		mode   check.Mode
		breakf func(t *testing.T, dir string) // makes the run differ and then fail
	}
	for _, tc := range []testCase{
		{"refresh times out after the turn", check.Refresh, func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "session.jsonl"), `"Hello"`, `"Howdy"`)
			editFile(t, filepath.Join(dir, "input.json"), `]`, `, {"op": "waitForFile", "path": "never", "timeoutMs": 100}]`)
		}},
		{"record against a failing model", check.Record, func(t *testing.T, dir string) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyScenario(t, "text-turn")
			tc.breakf(t, dir)
			before := readTree(t, dir)
			down := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			}))
			defer down.Close()
			cfg := check.Config{
				Settings:      harness.Settings{Agent: agentCommand, Mode: tc.mode, Secrets: map[string]string{"DEEPSEEK_API_KEY": "k", "DEEPSEEK_BASE_URL": down.URL}},
				AllRecordings: true,
			}
			o := check.Check(context.Background(), dir, cfg)
			if o.Status != check.Failed || len(o.Wrote) > 0 {
				t.Fatalf("status %s, wrote %v; want a failure that writes nothing", o.Status, o.Wrote)
			}
			if d := cmp.Diff(before, readTree(t, dir)); d != "" {
				t.Errorf("fixture files changed (-before +after):\n%s", d)
			}
		})
	}
}

func editFile(t testing.TB, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.LastIndex(string(b), old)
	if i < 0 {
		t.Fatalf("%s: %q not found", path, old)
	}
	s := string(b[:i]) + new + string(b[i+len(old):])
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
