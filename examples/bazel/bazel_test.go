package bazel_test

import (
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/fspath"
	"github.com/acpsnap/acpsnap/scenario"
)

// installBazel is the one command that installs the Bazel this test runs.
const installBazel = "apt-get install bazel-bootstrap"

// targets are the sh_tests of BUILD, each in four shards.
var targets = []string{"replay", "gotest"}

const shards = 4

// TestBazel runs this folder's Bazel workspace offline as docs/ci.md
// shows it ("Bazel"), in a copy: go builds bin/, then bazel test //...
// passes with every scenario in exactly one shard's test.xml, the
// corpus's guards in the first, and no absolute path in any; then a
// scenario is broken and exactly its shard fails, in both tests.
func TestBazel(t *testing.T) {
	if os.Getenv("TEST_SRCDIR") != "" {
		t.Skip("inside Bazel: this test runs Bazel")
	}
	if testing.Short() {
		t.Skip("runs Bazel (about 30 s)")
	}
	if _, err := exec.LookPath("bazel"); err != nil {
		t.Skipf("bazel is not installed (install it with: %s)", installBazel)
	}
	ws := workspace(t)
	b := &bazelRun{t: t, ws: ws, root: t.TempDir()}
	t.Cleanup(b.shutdown)
	if out, err := b.run("test", "//..."); err != nil {
		t.Fatalf("bazel test //...: %v\n%s", err, out)
	}
	names, err := scenario.Names(filepath.Join(ws, "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	logs := b.testlogs()
	for _, target := range targets {
		reports := b.reports(logs, target)
		var all []string
		for k, r := range reports {
			if k == 0 != slices.Contains(r.names(), "guards") {
				t.Errorf("%s shard %d: the guards case belongs to shard 1 only: %v", target, k+1, r.names())
			}
			all = append(all, slices.DeleteFunc(r.names(), func(n string) bool { return n == "guards" })...)
			if f := r.failed(); len(f) > 0 {
				t.Errorf("%s shard %d: failed %v", target, k+1, f)
			}
		}
		slices.Sort(all)
		if d := cmp.Diff(names, all); d != "" {
			t.Errorf("%s: the scenarios of the shards' test.xml, each once (-want +got):\n%s", target, d)
		}
	}

	// A broken scenario fails its shard and no other.
	broken := "text-turn"
	stdout := filepath.Join(ws, "corpus", broken, scenario.StdoutFile)
	b2, err := os.ReadFile(stdout)
	if err != nil || !strings.Contains(string(b2), "nice") {
		t.Fatalf("%s: %v, or no \"nice\" to break", stdout, err)
	}
	if err := os.WriteFile(stdout, []byte(strings.ReplaceAll(string(b2), "nice", "NICE")), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := b.run("test", "//..."); err == nil {
		t.Fatalf("bazel test //... passed with %s broken:\n%s", broken, out)
	}
	for _, target := range targets {
		for k, r := range b.reports(logs, target) {
			want := []string(nil)
			if slices.Contains(r.names(), broken) {
				want = []string{broken}
			}
			if d := cmp.Diff(want, r.failed()); d != "" {
				t.Errorf("%s shard %d: failed cases with %s broken (-want +got):\n%s", target, k+1, broken, d)
			}
		}
	}
}

// workspace copies this folder's Bazel workspace (not its bin/) to a new
// folder and builds bin/ there as docs/ci.md says.
func workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == "bin" {
			continue
		}
		if err := os.CopyFS(filepath.Join(ws, e.Name()), os.DirFS(e.Name())); err != nil && e.IsDir() {
			t.Fatal(err)
		} else if !e.IsDir() {
			copyFile(t, e.Name(), filepath.Join(ws, e.Name()))
		}
	}
	for _, argv := range [][]string{
		{"go", "build", "-o", filepath.Join(ws, "bin", "acpsnap"), "github.com/acpsnap/acpsnap/cmd/acpsnap"},
		{"go", "test", "-c", "-o", filepath.Join(ws, "bin", "corpus.test"), "."},
	} {
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
		}
	}
	return ws
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// bazelRun runs bazel in the workspace ws with an output root of its own.
type bazelRun struct {
	t        *testing.T
	ws, root string
}

// run runs bazel with the startup options of a hermetic run: an output
// root of its own, no rc file of the user's (the system's and the
// workspace's are read), a server that stops soon after.
func (b *bazelRun) run(args ...string) (string, error) {
	startup := []string{"--output_user_root=" + b.root, "--nohome_rc", "--max_idle_secs=15"}
	cmd := exec.Command("bazel", append(startup, args...)...)
	cmd.Dir = b.ws
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// shutdown stops the server and removes the output root (Bazel leaves
// read-only folders in it).
func (b *bazelRun) shutdown() {
	if out, err := b.run("shutdown"); err != nil {
		b.t.Logf("bazel shutdown: %v\n%s", err, out)
	}
	if err := fspath.RemoveAll(b.root); err != nil {
		b.t.Error(err)
	}
}

// testlogs is where bazel writes the tests' logs and reports.
func (b *bazelRun) testlogs() string {
	out, err := b.run("info", "bazel-testlogs")
	if err != nil {
		b.t.Fatalf("bazel info bazel-testlogs: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	return lines[len(lines)-1]
}

// report is one shard's test.xml.
type report struct {
	Suites []struct {
		Name  string `xml:"name,attr"`
		Cases []struct {
			Name    string    `xml:"name,attr"`
			Class   string    `xml:"classname,attr"`
			Failure *struct{} `xml:"failure"`
			Error   *struct{} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// reports reads the test.xml of every shard of target, checking that it
// names the corpus as the workspace does and holds no absolute path.
func (b *bazelRun) reports(logs, target string) []report {
	b.t.Helper()
	var out []report
	for k := 1; k <= shards; k++ {
		p := filepath.Join(logs, target, fmt.Sprintf("shard_%d_of_%d", k, shards), "test.xml")
		data, err := os.ReadFile(p)
		if err != nil {
			b.t.Fatal(err)
		}
		for _, abs := range []string{b.root, b.ws, os.TempDir()} {
			if strings.Contains(string(data), abs) {
				b.t.Errorf("%s shard %d: test.xml holds the absolute path %s:\n%s", target, k, abs, data)
			}
		}
		var r report
		if err := xml.Unmarshal(data, &r); err != nil {
			b.t.Fatalf("%s: %v\n%s", p, err, data)
		}
		for _, s := range r.Suites {
			for _, c := range s.Cases {
				if s.Name != "corpus" || c.Class != "corpus" {
					b.t.Errorf("%s shard %d: suite %q, case %s of class %q; want the corpus named corpus", target, k, s.Name, c.Name, c.Class)
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// names are the cases of r.
func (r report) names() []string {
	var out []string
	for _, s := range r.Suites {
		for _, c := range s.Cases {
			out = append(out, c.Name)
		}
	}
	return out
}

// failed are the cases of r that failed or erred.
func (r report) failed() []string {
	var out []string
	for _, s := range r.Suites {
		for _, c := range s.Cases {
			if c.Failure != nil || c.Error != nil {
				out = append(out, c.Name)
			}
		}
	}
	return out
}
