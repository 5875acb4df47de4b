package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestExampleDrift proves, per example corpus whose agent is installed,
// that a changed prompt fails offline with the request-drift diff: a copy
// of the corpus whose text-turn says "Say goodbye." instead of "Say
// hello.", run with acpsnap run -offline, must fail naming the JSON path
// of the changed text, both values, and the command that accepts it.
func TestExampleDrift(t *testing.T) {
	corpora, err := filepath.Glob(filepath.Join("*", scenario.CorpusFile))
	if err != nil {
		t.Fatal(err)
	}
	path := agentPath(t)
	var dirs []string
	for _, file := range corpora {
		c, err := scenario.LoadCorpus(filepath.Dir(file))
		if err != nil {
			t.Fatal(err)
		}
		if lookPath(c.Agent.Command[0], path) {
			dirs = append(dirs, filepath.Dir(file))
		}
	}
	if len(dirs) == 0 {
		t.Skip("no example agent is installed (TestExamples says how to install them)")
	}
	acpsnap := buildAcpsnap(t)
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			if _, err := os.Stat(filepath.Join(dir, "text-turn", scenario.InputFile)); err != nil {
				t.Skipf("no text-turn scenario to change: %v", err)
			}
			root := driftCopy(t, dir, "text-turn")
			cmd := exec.Command(acpsnap, "run", "-offline", "-dir", root, "-run", "^text-turn$")
			cmd.Env = append(os.Environ(), "PATH="+path)
			out, err := cmd.CombinedOutput()
			if strings.Contains(string(out), "-offline:") && strings.Contains(string(out), "namespace") {
				t.Skipf("no loopback-only network namespace here:\n%s", out)
			}
			code := -1
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			}
			for _, re := range []*regexp.Regexp{
				regexp.MustCompile(`request drift: POST /\S+ \(request \d+\) matches no recorded exchange`),
				regexp.MustCompile(`\$\.\S+: recorded "Say hello\.", request "Say goodbye\."`),
				regexp.MustCompile(`acpsnap (record|refresh) -dir \S+ -run '\^text-turn\$'`),
			} {
				if !re.Match(out) {
					t.Errorf("output lacks %s", re)
				}
			}
			if code != 1 || t.Failed() {
				t.Fatalf("acpsnap run -offline with a changed prompt: exit %d, want 1 and the drift\n%s", code, out)
			}
		})
	}
}

// driftCopy copies the corpus's root (acpsnap.yml, home/, pins/) and one
// scenario into a temporary corpus, the scenario's prompt "Say hello."
// changed to "Say goodbye.", and returns the copy's root.
func driftCopy(t *testing.T, dir, name string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), filepath.Base(dir))
	for _, sub := range []string{"home", "pins", name} {
		if err := os.CopyFS(filepath.Join(root, sub), os.DirFS(filepath.Join(dir, sub))); err != nil {
			t.Fatal(err)
		}
	}
	copyEdit := func(rel, old, new string) { // copy rel, old replaced by new once
		b, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), old) {
			t.Fatalf("%s: no %s to change", filepath.Join(dir, rel), old)
		}
		if err := os.WriteFile(filepath.Join(root, rel), []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	copyEdit(scenario.CorpusFile, "", "")
	copyEdit(filepath.Join(name, scenario.InputFile), `"Say hello."`, `"Say goodbye."`)
	return root
}
