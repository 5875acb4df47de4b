// Package examples holds corpora for real third-party ACP agents, each in
// a folder with its own acpsnap.yml. TestExamples replays every corpus
// whose agent is installed, offline (a loopback-only network namespace,
// `acpsnap run -offline`), through the acpsnap command itself; an agent
// that is not installed is skipped, naming the command that installs it.
package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/cli"
	"github.com/acpsnap/acpsnap/scenario"
)

// installHint is the one command that installs every example agent.
const installHint = "install the example agents with: eval \"$(scripts/install-agents)\""

// agentPath is PATH with the install cache of scripts/install-agents first.
func agentPath(t testing.TB) string {
	t.Helper()
	cache, err := filepath.Abs(filepath.Join("..", ".cache", "agents", "node_modules", ".bin"))
	if err != nil {
		t.Fatal(err)
	}
	return cache + string(os.PathListSeparator) + os.Getenv("PATH")
}

// lookPath finds name on path.
func lookPath(name, path string) bool {
	for _, dir := range filepath.SplitList(path) {
		if st, err := os.Stat(filepath.Join(dir, name)); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}

// TestMain makes this test binary the acpsnap command when it runs under
// that name (the link buildAcpsnap makes): cmd/acpsnap's main is exactly
// cli.Main, so the tests drive the command without a go build of their own.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == "acpsnap" {
		os.Exit(cli.Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// buildAcpsnap returns the acpsnap command: this test binary, linked into
// the test's temporary folder under the name acpsnap (copied where it
// cannot be linked). The command re-executes itself by that path (-offline,
// mcp-cassette), so it stays acpsnap throughout.
func buildAcpsnap(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	acpsnap := filepath.Join(t.TempDir(), "acpsnap")
	if os.Link(self, acpsnap) == nil {
		return acpsnap
	}
	b, err := os.ReadFile(self)
	if err == nil {
		err = os.WriteFile(acpsnap, b, 0o755)
	}
	if err != nil {
		t.Fatalf("the acpsnap command: %v", err)
	}
	return acpsnap
}

var summary = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed`)

func TestExamples(t *testing.T) {
	corpora, err := filepath.Glob(filepath.Join("*", scenario.CorpusFile))
	if err != nil || len(corpora) == 0 {
		t.Fatalf("no example corpora: %v", err)
	}
	path := agentPath(t)
	acpsnap := buildAcpsnap(t)
	skipped := false
	for _, file := range corpora {
		dir := filepath.Dir(file)
		t.Run(dir, func(t *testing.T) {
			c, err := scenario.LoadCorpus(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !lookPath(c.Agent.Command[0], path) {
				if !skipped {
					t.Log(installHint)
					skipped = true
				}
				t.Skipf("%s is not installed (%s)", c.Agent.Command[0], installHint)
			}
			cmd := exec.Command(acpsnap, "run", "-offline", "-parallel", "2", "-dir", dir)
			cmd.Env = append(os.Environ(), "PATH="+path)
			out, err := cmd.CombinedOutput()
			if strings.Contains(string(out), "-offline:") && strings.Contains(string(out), "namespace") {
				t.Skipf("no loopback-only network namespace here, and the examples never run online:\n%s", out)
			}
			m := summary.FindSubmatch(out)
			if err != nil || m == nil || string(m[2]) != "0" {
				t.Fatalf("acpsnap run -offline -dir %s: %v\n%s", dir, err, out)
			}
			t.Logf("%s: %s passed", dir, m[1])
		})
	}
}
