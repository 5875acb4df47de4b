package cli

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/google/go-cmp/cmp"
)

// testEnv is an env whose getenv reads vars only.
func testEnv(vars map[string]string) *env {
	return &env{stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}, getenv: func(k string) string { return vars[k] }}
}

func TestRunConfigCI(t *testing.T) {
	type testCase struct {
		name     string
		cmd      string
		ci       string
		force    bool
		wantErr  string // "" means success; else a substring of the usage error
		wantMode check.Mode
	}
	const refusal = "writes fixtures and CI is set: refusing (pass -force to write anyway)"
	tests := []testCase{
		{"run under CI", "run", "true", false, "", check.Replay},
		{"update under CI", "update", "true", false, "update " + refusal, ""},
		{"refresh under CI", "refresh", "1", false, "refresh " + refusal, ""},
		{"record under CI", "record", "true", false, "record " + refusal, ""},
		{"update forced under CI", "update", "true", true, "", check.Update},
		{"refresh forced under CI", "refresh", "true", true, "", check.Refresh},
		{"record forced under CI still needs a key", "record", "true", true, "record needs DEEPSEEK_API_KEY", ""},
		{"update without CI", "update", "", false, "", check.Update},
		{"refresh without CI", "refresh", "", false, "", check.Refresh},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir()) // record reads ./.env
			dir := t.TempDir()
			rc, err := testEnv(map[string]string{"CI": tc.ci}).runConfig(tc.cmd, &runFlags{dir: dir, force: tc.force, parallel: 2})
			if tc.wantErr != "" {
				var ue *usageError
				if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("runConfig = %v (%T), want a usage error containing %q", err, err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rc.Mode != tc.wantMode || rc.Root != dir || rc.Parallel != 2 {
				t.Errorf("runConfig = mode %q root %q parallel %d; want mode %q root %q parallel 2", rc.Mode, rc.Root, rc.Parallel, tc.wantMode, dir)
			}
		})
	}
}

// TestRunCIExitCode: the refusal reaches the user as exit 2 and one line
// on stderr, before any scenario runs.
func TestRunCIExitCode(t *testing.T) {
	e := testEnv(map[string]string{"CI": "true"})
	code := e.main([]string{"refresh", "-dir", t.TempDir()})
	stderr := e.stderr.(*bytes.Buffer).String()
	if code != ExitUsage {
		t.Errorf("exit code = %d, want %d", code, ExitUsage)
	}
	want := "acpsnap: refresh writes fixtures and CI is set: refusing (pass -force to write anyway)\n"
	if diff := cmp.Diff(want, stderr); diff != "" {
		t.Errorf("stderr (-want +got):\n%s", diff)
	}
	if out := e.stdout.(*bytes.Buffer).String(); out != "" {
		t.Errorf("stdout = %q, want nothing", out)
	}
}

func TestRunConfigFlags(t *testing.T) {
	dir := t.TempDir()
	e := testEnv(nil)
	if _, err := e.runConfig("run", &runFlags{dir: dir + "/missing"}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("missing corpus: %v, want a usage error saying not a directory", err)
	}
	if _, err := e.runConfig("run", &runFlags{dir: dir, run: "("}); err == nil || !strings.HasPrefix(err.Error(), "-run: ") {
		t.Errorf("bad -run: %v, want an error naming -run", err)
	}
	if _, err := e.runConfig("run", &runFlags{dir: dir, shard: "3/2"}); err == nil || !strings.HasPrefix(err.Error(), "-shard: ") {
		t.Errorf("bad -shard: %v, want an error naming -shard", err)
	}
	rc, err := e.runConfig("run", &runFlags{dir: dir, run: "^text-", shard: "2/4", agent: "sh 'my agent.sh'"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"sh", "my agent.sh"}, rc.Agent); diff != "" {
		t.Errorf("agent (-want +got):\n%s", diff)
	}
	if rc.Selection.Run.String() != "^text-" || rc.Selection.Shard != 2 || rc.Selection.Shards != 4 {
		t.Errorf("selection = %v %d/%d, want ^text- 2/4", rc.Selection.Run, rc.Selection.Shard, rc.Selection.Shards)
	}
}
