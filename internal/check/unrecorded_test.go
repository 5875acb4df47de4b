package check

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/harness"
)

// TestUnrecorded: a scaffolded scenario is reported, without running an
// agent, with the mode that records it; record mode itself runs it.
func TestUnrecorded(t *testing.T) {
	type testCase struct {
		name      string
		recording string
		model     bool
		mode      Mode
		want      Outcome
	}
	for _, tc := range []testCase{
		{"live", "live", false, Replay, Outcome{Name: "s", Status: Unrecorded, Reason: "not recorded yet", Accept: Record}},
		{"live, update", "live", false, Update, Outcome{Name: "s", Status: Unrecorded, Reason: "not recorded yet", Accept: Record}},
		{"authored with its model", "authored", true, Replay, Outcome{Name: "s", Status: Unrecorded, Reason: "not recorded yet", Accept: Refresh}},
		{"authored without a model", "authored", false, Replay, Outcome{Name: "s", Status: Unrecorded, Reason: "not recorded yet"}},
		{"session.jsonl deleted", "live", false, Replay, Outcome{Name: "s", Status: Failed, Reason: "missing session.jsonl: the scenario's replay source; record it again", Accept: Record}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "s")
			writeFiles(t, dir, map[string]string{
				"snapshot.yml": "version: 1\nscenario: s\nreason: r\nrecording: " + tc.recording + "\n",
				"input.json":   `{"steps":[{"op":"initialize"}]}`,
			})
			if tc.model {
				writeFiles(t, dir, map[string]string{"model.json": `[]`})
			}
			if tc.want.Status == Failed {
				writeFiles(t, dir, map[string]string{"stdout.expected.jsonl": "{}\n"})
			}
			got := Check(context.Background(), dir, Config{Settings: harness.Settings{Agent: []string{"/nonexistent/agent"}, Mode: tc.mode}})
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("outcome (-want +got):\n%s", d)
			}
		})
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
