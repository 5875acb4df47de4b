// Package examples holds corpora for real third-party ACP agents, each in
// a folder with its own acpsnap.yml. TestExamples replays every corpus
// whose agent is installed, offline (a loopback-only network namespace,
// `acpsnap run -offline`), through the acpsnap command itself; an agent
// that is not installed is skipped, naming the command that installs it.
package examples_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/acpsnap/acpsnap/internal/scenario"
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

// acpsnapBin is the acpsnap command built once for this test binary by
// TestMain, in a folder it removes after the tests; "" until the first
// buildAcpsnap.
var acpsnapBin struct {
	once sync.Once
	dir  string
	path string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if acpsnapBin.dir != "" {
		os.RemoveAll(acpsnapBin.dir)
	}
	os.Exit(code)
}

// buildAcpsnap returns the acpsnap command, built from cmd/acpsnap once per
// test binary (the go command's cache makes it a link). The command
// re-executes itself by that path (-offline, mcp-cassette), so it stays
// acpsnap throughout.
func buildAcpsnap(t *testing.T) string {
	t.Helper()
	acpsnapBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "acpsnap-examples-")
		if err != nil {
			acpsnapBin.err = err
			return
		}
		acpsnapBin.dir = dir
		path := filepath.Join(dir, "acpsnap")
		out, err := exec.Command("go", "build", "-o", path, "github.com/acpsnap/acpsnap/cmd/acpsnap").CombinedOutput()
		if err != nil {
			acpsnapBin.err = fmt.Errorf("%w\n%s", err, out)
			return
		}
		acpsnapBin.path = path
	})
	if acpsnapBin.err != nil {
		t.Fatalf("building the acpsnap command: %v", acpsnapBin.err)
	}
	return acpsnapBin.path
}

var summary = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed`)

func TestExamples(t *testing.T) {
	corpora, err := filepath.Glob(filepath.Join("*", scenario.CorpusFile))
	if err != nil || len(corpora) == 0 {
		t.Fatalf("no example corpora: %v", err)
	}
	path := agentPath(t)
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
			cmd := exec.Command(buildAcpsnap(t), "run", "-offline", "-parallel", "2", "-dir", dir)
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
