package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestPlanFor: what Check does with a scenario is decided from the
// scenario as read and the mode, before anything runs.
func TestPlanFor(t *testing.T) {
	type testCase struct {
		name      string
		recording string
		files     []string // besides snapshot.yml and input.json
		cfg       Config
		want      plan
	}
	scripted := func(string) map[string]string { return nil }
	for _, tc := range []testCase{
		{name: "replay", recording: "live", files: []string{scenario.StdoutFile, scenario.SessionFile}, want: plan{act: actRun}},
		{name: "record", recording: "live", cfg: Config{Settings: settings(Record)}, want: plan{act: actRun}},
		{name: "record skips an authored scenario", recording: "authored", cfg: Config{Settings: settings(Record)},
			want: plan{act: actSkip, reason: "recording: authored (never re-recorded; use refresh)"}},
		{name: "refresh renders an authored scenario's model", recording: "authored", files: []string{scenario.ModelFile},
			cfg: Config{Settings: settings(Refresh), ScriptedSecrets: scripted}, want: plan{act: actRender}},
		{name: "refresh without a scripted server replays", recording: "authored", files: []string{scenario.ModelFile, scenario.StdoutFile, scenario.SessionFile},
			cfg: Config{Settings: settings(Refresh)}, want: plan{act: actRun}},
		{name: "unrecorded live", recording: "live", want: plan{act: actUnrecorded, reason: "not recorded yet", accept: Record}},
		{name: "unrecorded authored without its model", recording: "authored", want: plan{act: actUnrecorded, reason: "not recorded yet"}},
		{name: "no replay source", recording: "live", files: []string{scenario.StdoutFile},
			want: plan{act: actNoLog, reason: "missing session.jsonl: the scenario's replay source; record it again", accept: Record}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "s")
			files := map[string]string{
				scenario.ManifestFile: "version: 1\nscenario: s\nreason: r\nrecording: " + tc.recording + "\n",
				scenario.InputFile:    `{"steps":[{"op":"initialize"}]}`,
			}
			for _, f := range tc.files {
				files[f] = "[]\n"
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, content := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			c := newChecker(dir, tc.cfg, pass{}, nil)
			if c.s = scenario.Load(dir); c.s.ManifestErr != nil {
				t.Fatal(c.s.ManifestErr)
			}
			if d := cmp.Diff(tc.want, c.plan(), cmp.AllowUnexported(plan{})); d != "" {
				t.Errorf("plan (-want +got):\n%s", d)
			}
		})
	}
}

func settings(m Mode) harness.Settings { return harness.Settings{Mode: m} }
