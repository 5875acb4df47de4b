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

	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// installBazel is the one command that installs the Bazel this test runs.
const installBazel = "apt-get install bazel-bootstrap"

// targets are the sh_tests of BUILD, each in four shards.
var targets = []string{"replay", "gotest"}

const shards = 4

// TestBazel runs this folder's Bazel workspace offline in a copy, with
// the commands of docs/ci.md ("Bazel"): go builds bin/, then bazel test
// //... passes with every scenario in exactly one shard's test.xml, the
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
	doc := docs(t)
	b := &bazelRun{t: t, ws: workspace(t), root: t.TempDir()}
	ws := b.ws
	t.Cleanup(b.shutdown)
	// The output root of this test and a server that stops soon after,
	// as startup options of the copy's .bazelrc: the commands stay the
	// page's.
	rc := fmt.Sprintf("\nstartup --output_user_root=%s --max_idle_secs=15\n", b.root)
	if err := os.WriteFile(filepath.Join(ws, ".bazelrc"), append(readFile(t, ".bazelrc"), rc...), 0o644); err != nil {
		t.Fatal(err)
	}
	// The server starts (seconds of a JVM's start) while go builds bin/,
	// which the copy then gets: bazel test reads the workspace's files
	// when it runs, not when its server started.
	started := b.start()
	build(t, doc)
	copyBin(t, ws)
	if err := started(); err != nil {
		t.Fatal(err)
	}
	if out, err := b.shell(doc.bazel); err != nil {
		t.Fatalf("%s: %v\n%s", doc.bazel, err, out)
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
	if out, err := b.shell(doc.bazel); err == nil {
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

// page is what docs/ci.md shows of this example: the go commands that
// build bin/ in this folder, then the bazel command.
type page struct {
	build []string
	bazel string
}

// docs reads the Bazel section of docs/ci.md and checks that the BUILD it
// shows is this folder's, from CORPUS on.
func docs(t *testing.T) page {
	t.Helper()
	md := string(readFile(t, "../../docs/ci.md"))
	_, section, ok := strings.Cut(md, "\n## Bazel\n")
	if !ok {
		t.Fatal("docs/ci.md has no section ## Bazel")
	}
	blocks := strings.Split(section, "```")
	var p page
	var build string
	for i := 1; i < len(blocks); i += 2 {
		lang, body, _ := strings.Cut(blocks[i], "\n")
		switch {
		case lang == "python" && build == "":
			build = body
		case lang == "sh" && p.bazel == "":
			lines := strings.Split(strings.TrimSpace(body), "\n")
			if len(lines) < 3 || lines[0] != "cd examples/bazel" {
				t.Fatalf("docs/ci.md's Bazel commands %q do not start in examples/bazel", lines)
			}
			p.build, p.bazel = lines[1:len(lines)-1], lines[len(lines)-1]
		}
	}
	_, tail, _ := strings.Cut(string(readFile(t, "BUILD")), "\nCORPUS = ")
	if build != "CORPUS = "+tail {
		t.Errorf("docs/ci.md shows another BUILD than examples/bazel's:\n%s\nexamples/bazel/BUILD from CORPUS on:\nCORPUS = %s", build, tail)
	}
	if p.bazel != "bazel test //..." {
		t.Fatalf("docs/ci.md's Bazel commands end in %q, not bazel test //...", p.bazel)
	}
	return p
}

// build runs the go commands of the page in this folder, as a user does:
// they build bin/, which the copy of the workspace then gets (bin/ is
// removed again unless it was here before).
func build(t *testing.T, p page) {
	t.Helper()
	if _, err := os.Stat("bin"); os.IsNotExist(err) {
		t.Cleanup(func() { os.RemoveAll("bin") })
	}
	for _, line := range p.build {
		if out, err := exec.Command("sh", "-c", line).CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", line, err, out)
		}
	}
}

func readFile(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// workspace copies this folder's Bazel workspace to a new folder, bin/
// aside: copyBin copies it once build has made it.
func workspace(t *testing.T) string {
	t.Helper()
	ws := t.TempDir()
	if err := os.CopyFS(ws, os.DirFS(".")); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(ws, "bin")); err != nil {
		t.Fatal(err)
	}
	return ws
}

// copyBin copies this folder's bin/ into the workspace ws.
func copyBin(t *testing.T, ws string) {
	t.Helper()
	if err := os.CopyFS(filepath.Join(ws, "bin"), os.DirFS("bin")); err != nil {
		t.Fatal(err)
	}
}

// bazelRun runs bazel in the workspace ws with an output root of its own.
type bazelRun struct {
	t        *testing.T
	ws, root string
}

// shell runs a command line of the page in the workspace.
func (b *bazelRun) shell(line string) (string, error) {
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir = b.ws
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// run runs bazel with the output root of the test.
func (b *bazelRun) run(args ...string) (string, error) {
	cmd := exec.Command("bazel", append([]string{"--output_user_root=" + b.root}, args...)...)
	cmd.Dir = b.ws
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// start starts the server of the workspace in the background and returns
// a wait for it; a test that ends early waits for it before shutdown.
func (b *bazelRun) start() (wait func() error) {
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		if out, e := b.run("info", "release"); e != nil {
			err = fmt.Errorf("bazel info release: %v\n%s", e, out)
		}
	}()
	b.t.Cleanup(func() { <-done }) // runs before shutdown, registered earlier
	return func() error { <-done; return err }
}

// shutdown stops the server and removes the output root (Bazel leaves
// read-only folders in it).
func (b *bazelRun) shutdown() {
	if out, err := b.run("shutdown"); err != nil {
		b.t.Logf("bazel shutdown: %v\n%s", err, out)
	}
	if err := safefile.RemoveAll(b.root); err != nil {
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
// names the corpus as the workspace does and holds no absolute path, and
// that the shard touched its status file (test.shard).
func (b *bazelRun) reports(logs, target string) []report {
	b.t.Helper()
	var out []report
	for k := 1; k <= shards; k++ {
		dir := filepath.Join(logs, target, fmt.Sprintf("shard_%d_of_%d", k, shards))
		if _, err := os.Stat(filepath.Join(dir, "test.shard")); err != nil {
			b.t.Errorf("%s shard %d: the shard status file was not touched: %v", target, k, err)
		}
		p := filepath.Join(dir, "test.xml")
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
