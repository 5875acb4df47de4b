package snapshots_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// The scenarios whose children replay from subagents.cassette.jsonl.
var cassetteScenarios = []string{"subagent-cassette-parallel", "subagent-cassette-duplicate", "subagent-cassette-error"}

// TestSubagentCassetteStartsNoChild: replaying a scenario with a subagent
// cassette writes the primary log only (no child session, so no child
// log) and the model serves the primary fixture only (no child model
// call: one would have been a "missing child fixture" replay error).
func TestSubagentCassetteStartsNoChild(t *testing.T) {
	for _, name := range cassetteScenarios {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			res, err := harness.Run(context.Background(), harness.Config{Settings: harness.Settings{Agent: agentCommand}, Dir: name})
			if err != nil {
				t.Fatalf("replay: %v", err)
			}
			if len(res.Logs) != 1 {
				t.Errorf("the replay wrote %d session logs, want the primary's only", len(res.Logs))
			}
			if res.Report == nil || len(res.Report.Fixtures) != 1 || len(res.Report.Errors) > 0 {
				t.Fatalf("replay report %+v, want the primary fixture only and no error", res.Report)
			}
			f := res.Report.Fixtures[0]
			if f.Fixture != scenario.SessionFile || f.Left != 0 || f.Served != 2 {
				t.Errorf("primary fixture %+v, want its 2 model calls served and none left", f)
			}
		})
	}
}

// edited copies the bundled scenario name and replaces old with new in its
// file (which must change).
func edited(t *testing.T, name, file, old, new string) string {
	t.Helper()
	dir := copyScenario(t, name)
	p := filepath.Join(dir, file)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %q", p, old)
	}
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(string(b), old, new)), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestSubagentCassetteFailures: a copy of a scenario changed so that its
// cassette no longer fits fails, for the documented reason.
func TestSubagentCassetteFailures(t *testing.T) {
	for _, tc := range []struct {
		name, scenario, file, old, new string
		want                           []string // in the reason, the stderr or the diff
	}{
		{"duplicate-reject", "subagent-cassette-duplicate", scenario.ManifestFile, "duplicatePolicy: sequence", "duplicatePolicy: reject",
			[]string{"identical requests were recorded with different outcomes"}},
		{"request-changed", "subagent-cassette-parallel", scenario.SessionFile, `Report a.txt.`, `Report c.txt.`,
			[]string{"CASSETTE_MISMATCH", "request-changed", "1 recorded calls were not replayed"}},
		{"parent-context-changed", "subagent-cassette-parallel", scenario.ManifestFile, "permission: auto", "permission: ask",
			[]string{"CASSETTE_MISMATCH", "parent-context-changed", "2 recorded calls were not replayed"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := edited(t, tc.scenario, tc.file, tc.old, tc.new)
			o := check.Check(context.Background(), dir, check.Config{Settings: harness.Settings{Agent: agentCommand}})
			if o.Status != check.Failed {
				t.Fatalf("status %s, want failed", o.Status)
			}
			all := o.Reason + "\n" + o.Stderr + "\n" + o.Diff
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("the failure does not say %q:\n%s", w, all)
				}
			}
			for _, secret := range []string{"alpha", "beta", "three files"} {
				if strings.Contains(o.Reason+o.Stderr, secret) {
					t.Errorf("the failure shows a recorded result (%q):\n%s", secret, o.Reason+o.Stderr)
				}
			}
		})
	}
}

// TestSubagentCassetteGuards: child logs beside a subagent cassette are a
// guard violation.
func TestSubagentCassetteGuards(t *testing.T) {
	dir := copyScenario(t, "subagent-cassette-parallel")
	b, err := os.ReadFile(filepath.Join("subagent-parallel", scenario.ChildFile(1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, scenario.ChildFile(1)), b, 0o644); err != nil {
		t.Fatal(err)
	}
	vs := check.Verify(filepath.Dir(dir), check.VerifyConfig{})
	if len(vs) != 1 || !strings.Contains(vs[0].String(), "child log with subagents.cassette") {
		t.Errorf("violations %v, want the child log beside the subagent cassette", vs)
	}
}

// TestSubagentCassetteRunFolders: a task call whose prompt holds the run's
// cwd (the model repeats the path it was shown) and whose child answers
// with it records, and replays in later runs, each with other folders: the
// cassette identifies the call by the prompt with {{cwd}} in its place
// (no request-changed CASSETTE_MISMATCH), and the parent gets the answer
// with today's cwd.
func TestSubagentCassetteRunFolders(t *testing.T) {
	dir := copyScenario(t, "subagent-cassette-parallel")
	editFile(t, filepath.Join(dir, scenario.ManifestFile), "    timing: recorded\n    speed: 10\n", "    {}\n")
	cwd := "{{fromRequest:(/[-a-zA-Z0-9_./]*acpsnap-[-a-zA-Z0-9_]*/workspace)}}"
	primary := mustScript(t, "["+toolEntry("call_1", "task", `{"description":"where","prompt":"Say where `+cwd+` is."}`)+","+textEntry("Done.")+"]")
	child := mustScript(t, "["+textEntry("It is "+cwd+".")+"]")
	srv, err := replay.NewServer(replay.ServerConfig{Primary: primary, Children: map[string]replay.Script{"call_1": child}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg := check.Config{
		Settings: harness.Settings{Agent: agentCommand, Mode: check.Record, Secrets: map[string]string{"DEEPSEEK_API_KEY": "k", "DEEPSEEK_BASE_URL": srv.URL()}},
	}
	mustPass(t, check.Check(context.Background(), dir, cfg))
	b, err := os.ReadFile(filepath.Join(dir, scenario.SubagentCassetteFile))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"output":"It is {{cwd}}."`) || strings.Contains(string(b), "/acpsnap-") {
		t.Errorf("the cassette does not store the answer with {{cwd}}:\n%s", b)
	}
	for range 3 {
		mustPass(t, replayed(t, dir))
	}
}
