package acpsnaptest_test

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/check"
)

// TestModuleWorkflow checks the user module as committed, with one build
// of its test binary (go test -c, with the module's own go.sum: no
// -mod=mod) and `go tool acpsnap` (the tool line of its go.mod): green as
// shipped; both shard protocols with the CLI's partition; the JUnit report
// Bazel asks for; record-missing recording only what is not recorded; a changed agent written as pending files from go test
// and accepted by `go tool acpsnap accept` without -dir; a changed prompt
// (the agent's system prompt) reported as the changed words, once for the
// scenarios it changes.
func TestModuleWorkflow(t *testing.T) {
	needModule(t)
	t.Parallel() // a module copy of its own, alongside TestModule's
	mod := userModule(t)
	shipped := shippedEnv()
	if out, err := run(mod, shipped, "go", "test", "-c", "-o", "acp/acp.test", "./acp"); err != nil {
		t.Fatalf("go test -c in the module as shipped (its go.sum, no -mod=mod): %v\n%s", err, out)
	}
	bin := &testBinary{t: t, dir: filepath.Join(mod, "acp"), env: shipped}

	t.Run("ACPSNAP_SHARD", func(t *testing.T) {
		bin.t = t
		var all []string
		for k := 1; k <= 2; k++ {
			out := bin.run(true, []string{"ACPSNAP_SHARD=" + []string{"", "1/2", "2/2"}[k]}, "-test.v", "-test.run", "TestNative")
			ran := passed(out, "TestNative")
			if d := cmp.Diff(shardOf(k, 2, "hello", "multi-turn"), ran); d != "" {
				t.Errorf("shard %d/2 (-want +got):\n%s", k, d)
			}
			if strings.Contains(out, "TestNative/guards") != (k == 1) {
				t.Errorf("shard %d/2: the guards run in shard 1 only:\n%s", k, out)
			}
			all = append(all, ran...)
		}
		slices.Sort(all)
		if d := cmp.Diff([]string{"hello", "multi-turn"}, all); d != "" {
			t.Errorf("the shards together (-want +got):\n%s", d)
		}
	})

	// The two Bazel shards run every scenario of the module: green as shipped.
	t.Run("Bazel", func(t *testing.T) {
		bin.t = t
		tmp := t.TempDir()
		for i := range 2 {
			status, report := filepath.Join(tmp, "status"), filepath.Join(tmp, "report.xml")
			os.Remove(status)
			env := []string{"TEST_TOTAL_SHARDS=2", "TEST_SHARD_INDEX=" + string(rune('0'+i)), "TEST_SHARD_STATUS_FILE=" + status, "XML_OUTPUT_FILE=" + report}
			bin.run(true, env)
			if _, err := os.Stat(status); err != nil {
				t.Errorf("shard %d: TEST_SHARD_STATUS_FILE not touched: %v", i, err)
			}
			want := []suite{}
			for _, corpus := range []string{"acp/native", "acp/http"} {
				s := suite{Name: corpus}
				if i == 0 { // the corpus's guards, checked in the first shard
					s.Cases = append(s.Cases, testCase{Name: "guards", Class: corpus})
				}
				for _, name := range shardOf(i+1, 2, "hello", "multi-turn") {
					s.Cases = append(s.Cases, testCase{Name: name, Class: corpus})
				}
				want = append(want, s)
			}
			if d := cmp.Diff(want, readJUnit(t, report)); d != "" {
				t.Errorf("shard %d: XML_OUTPUT_FILE (-want +got):\n%s", i, d)
			}
		}
	})

	t.Run("record-missing", func(t *testing.T) {
		bin.t = t
		hello := filepath.Join(mod, "acp", "native", "hello")
		for _, f := range []string{"session.jsonl", "stdout.expected.jsonl"} {
			if err := os.Remove(filepath.Join(hello, f)); err != nil {
				t.Fatal(err)
			}
		}
		out := bin.run(true, []string{"ACPSNAP_WRITE=record-missing"}, "-test.v", "-test.run", "TestNative")
		for _, want := range []string{"record-missing: 1 of 2 scenarios not recorded yet (hello); recording them spends live model calls for 1 scenario(s)",
			"--- PASS: TestNative/hello ", "wrote session.jsonl, stdout.expected.jsonl"} {
			if !strings.Contains(out, want) {
				t.Errorf("the output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "TestNative/multi-turn") {
			t.Errorf("record-missing ran multi-turn, which is recorded:\n%s", out)
		}
	})

	t.Run("pending", func(t *testing.T) {
		bin.t = t
		decorate(t, filepath.Join(mod, "acp", "native"))
		report := filepath.Join(t.TempDir(), "report.xml")
		out := bin.run(false, []string{"XML_OUTPUT_FILE=" + report}, "-test.run", "TestNative/hello", "-acpsnap.pending")
		for _, want := range []string{
			"pending: stdout.expected.jsonl.new (review with: acpsnap review -dir acp/native)",
			"accept them all with: acpsnap accept -dir acp/native",
			"pending files are never committed: add the line *.new to .gitignore",
			"diff (-want +got):",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("the output lacks %q:\n%s", want, out)
			}
		}
		if got := readJUnit(t, report); len(got) != 1 || len(got[0].Cases) != 1 || got[0].Cases[0].Failure == nil {
			t.Errorf("XML_OUTPUT_FILE = %+v, want the acp/native suite with hello failed", got)
		}
		bin.run(false, []string{"ACPSNAP_WRITE=pending"}, "-test.run", "TestNative/multi-turn")
		acc, err := run(mod, shipped, "go", "tool", "acpsnap", "accept")
		if err != nil {
			t.Fatalf("go tool acpsnap accept: %v\n%s", err, acc)
		}
		if !strings.Contains(acc, "accepted acp/native/hello/stdout.expected.jsonl.new\n") || !strings.Contains(acc, "accepted 2 pending file(s)") {
			t.Errorf("go tool acpsnap accept (no -dir) at the module root:\n%s", acc)
		}
		bin.run(true, nil, "-test.run", "TestNative")
	})

	t.Run("request drift", func(t *testing.T) {
		bin.t = t
		editFile(t, filepath.Join(mod, "acp", "http", "agent.py"), "a terse assistant", "a verbose assistant")
		out := bin.run(false, nil, "-test.run", "TestHTTP")
		for _, want := range []string{"request drift", `$.messages[0].content: recorded "You are a [-terse-] assistant: answer in …`,
			`request "You are a {+verbose+} assistant: answer in …`,
			"$.messages[0].content changed; 2 scenario(s) affected; accept once with: go test ./acp -run 'TestHTTP/^(hello|multi-turn)$' -args -acpsnap.record"} {
			if !strings.Contains(out, want) {
				t.Errorf("the output lacks %q:\n%s", want, out)
			}
		}
		// The agent ends a failed turn and goes on, so multi-turn's second
		// request drifts too and its diff shows the change again: shown
		// is the number of scenarios whose report shows it.
		shown := 0
		for _, report := range strings.Split(out, "--- FAIL: TestHTTP/")[1:] {
			if strings.Contains(report, "[-terse-]") {
				shown++
			}
		}
		if shown != 1 || !regexp.MustCompile(`the same change of \$\.messages\[0\]\.content as (hello|multi-turn)`).MatchString(out) {
			t.Errorf("the change is shown in %d scenarios, want one and then named as the same change:\n%s", shown, out)
		}
	})
}

// shardOf is the names shard k of n keeps, by the CLI's own partition.
func shardOf(k, n int, names ...string) []string {
	sel := check.Selection{Shard: k, Shards: n}
	out := []string{}
	for _, name := range names {
		if sel.Match(name) {
			out = append(out, name)
		}
	}
	return out
}

// testBinary runs the module's compiled test binary in its package folder.
type testBinary struct {
	t   *testing.T
	dir string
	env []string
}

// run runs the binary with args and env added, and fails the test unless
// its success is wantOK.
func (b *testBinary) run(wantOK bool, env []string, args ...string) string {
	b.t.Helper()
	out, err := run(b.dir, append(slices.Clone(b.env), env...), "./acp.test", args...)
	if (err == nil) != wantOK {
		b.t.Fatalf("%s ./acp.test %s: %v (want success %v):\n%s", strings.Join(env, " "), strings.Join(args, " "), err, wantOK, out)
	}
	return out
}

func run(dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// shippedEnv is goEnv with the module's go.mod and go.sum taken as they
// are (no -mod=mod): a missing go.sum entry fails the build.
func shippedEnv() []string {
	env := slices.DeleteFunc(goEnv(), func(kv string) bool { return strings.HasPrefix(kv, "GOFLAGS=") })
	return append(env, "GOFLAGS=-mod=readonly")
}

// passed lists the subtests of test that passed, in name order, guards aside.
func passed(out, test string) []string {
	got := []string{}
	for _, m := range regexp.MustCompile(`(?m)^\s*--- PASS: `+test+`/(\S+) `).FindAllStringSubmatch(out, -1) {
		if m[1] != "guards" {
			got = append(got, m[1])
		}
	}
	slices.Sort(got)
	return got
}

type suite struct {
	Name  string     `xml:"name,attr"`
	Cases []testCase `xml:"testcase"`
}

type testCase struct {
	Name    string    `xml:"name,attr"`
	Class   string    `xml:"classname,attr"`
	Failure *struct{} `xml:"failure"`
}

// readJUnit reads the suites of a JUnit report, which must be one
// <testsuites> document.
func readJUnit(t *testing.T, path string) []suite {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		XMLName xml.Name
		Suites  []suite `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil || doc.XMLName.Local != "testsuites" {
		t.Fatalf("%s: want a <testsuites> document (%v):\n%s", path, err, b)
	}
	return doc.Suites
}
