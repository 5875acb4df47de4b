package acpsnaptest_test

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/acpsnaptest"
	"github.com/acpsnap/acpsnap/testagents/fakeagent"
)

// TestMain serves the test binary as example-agent, the agent that
// testdata/example/acpsnap.yml names: a small scripted ACP agent that
// writes its session log.
func TestMain(m *testing.M) {
	acpsnaptest.Main(m, map[string]func() int{"example-agent": func() int {
		return fakeagent.Run(fakeagent.Script{}, os.Stdin, os.Stdout, os.Stderr)
	}})
}

// TestExample checks the example corpus as a user's test function does.
func TestExample(t *testing.T) {
	acpsnaptest.Run(t, acpsnaptest.Params{Dir: "testdata/example"})
}

// TestUnrecorded: a scenario scaffolded but not recorded yet fails alone
// with the command that records it, or, with SkipUnrecorded, is skipped;
// the recorded scenario beside it passes either way.
func TestUnrecorded(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "testdata/example", dir)
	writeFile(t, filepath.Join(dir, "draft", "snapshot.yml"), "version: 1\nscenario: draft\nreason: not recorded yet\nrecording: live\n")
	writeFile(t, filepath.Join(dir, "draft", "input.json"), `{"steps":[{"op":"initialize"}]}`)
	type testCase struct {
		skip     bool
		wantPass bool
		want     []string
	}
	for _, tc := range []testCase{
		{false, false, []string{
			"--- FAIL: TestDraft/draft ",
			"not recorded yet: record it with: go test ./acpsnaptest -run 'TestDraft/^draft$' -args -acpsnap.record\n",
			"or: ACPSNAP_WRITE=record go test ./acpsnaptest -run 'TestDraft/^draft$'\n",
		}},
		{true, true, nil},
	} {
		passed, out := runTest("TestDraft", func(t *testing.T) {
			acpsnaptest.Run(t, acpsnaptest.Params{Dir: dir, SkipUnrecorded: tc.skip})
		})
		if passed != tc.wantPass {
			t.Errorf("SkipUnrecorded %v: passed %v, want %v:\n%s", tc.skip, passed, tc.wantPass, out)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("SkipUnrecorded %v: the output lacks %q:\n%s", tc.skip, w, out)
			}
		}
		if strings.Contains(out, "FAIL: TestDraft/hello") {
			t.Errorf("the recorded scenario failed beside the draft:\n%s", out)
		}
	}
}

// TestNoAgent: a corpus whose acpsnap.yml names no agent, with no
// Params.Agent, fails saying where to name one.
func TestNoAgent(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "testdata/example", dir)
	writeFile(t, filepath.Join(dir, "acpsnap.yml"), "version: 1\n")
	passed, out := runTest("TestNoAgent", func(t *testing.T) { acpsnaptest.Run(t, acpsnaptest.Params{Dir: dir}) })
	if want := "set agent.command in " + filepath.Join(dir, "acpsnap.yml") + " (or Params.Agent)"; passed || !strings.Contains(out, want) {
		t.Errorf("passed %v, output lacks %q:\n%s", passed, want, out)
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestFilteredRunChecksItsFolder: with the guards subtest filtered out
// (go test -run 'TestX/^hello$'), hello still checks its own folder: a
// stray replay.override.json its manifest does not ask for fails it
// before any replay, and the same folder without the stray file passes.
func TestFilteredRunChecksItsFolder(t *testing.T) {
	type testCase struct {
		name     string
		stray    bool
		wantPass bool
	}
	for _, tc := range []testCase{{"stray override", true, false}, {"clean folder", false, true}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			copyTree(t, "testdata/example", dir)
			if tc.stray {
				writeFile(t, filepath.Join(dir, "hello", "replay.override.json"), `{"patches":[]}`)
			}
			passed, out := runFiltered(t, "TestFiltered/^hello$", "TestFiltered", func(t *testing.T) {
				acpsnaptest.Run(t, acpsnaptest.Params{Dir: dir})
			})
			if passed != tc.wantPass {
				t.Errorf("passed %v, want %v:\n%s", passed, tc.wantPass, out)
			}
			if strings.Contains(out, "TestFiltered/guards") {
				t.Errorf("the guards subtest ran although filtered out:\n%s", out)
			}
			if want := "replay.override.json: present=true but snapshot.yml says replay.override: false"; tc.stray && !strings.Contains(out, want) {
				t.Errorf("the output lacks %q:\n%s", want, out)
			}
		})
	}
}

// runFiltered is runTest with -test.run set to pattern, matched as go test
// matches it.
func runFiltered(t *testing.T, pattern, name string, f func(*testing.T)) (bool, string) {
	t.Helper()
	run := flag.Lookup("test.run")
	old := run.Value.String()
	if err := run.Value.Set(pattern); err != nil {
		t.Fatal(err)
	}
	defer run.Value.Set(old)
	return runTestMatching(regexp.MatchString, name, f)
}

// TestSharedChange: a stdout change two scenarios share is shown once,
// and the one line that says so names the go test command that accepts it
// for both; run as printed (its -run pattern and its -args flag), it
// writes them, and the next run passes.
func TestSharedChange(t *testing.T) {
	t.Setenv("CI", "") // the printed command writes, as a person runs it (CI never writes)
	dir := t.TempDir()
	copyTree(t, "testdata/example", dir)
	copyTree(t, filepath.Join(dir, "hello"), filepath.Join(dir, "hello2"))
	writeFile(t, filepath.Join(dir, "hello2", "snapshot.yml"), strings.Replace(readFile(t, filepath.Join(dir, "hello", "snapshot.yml")), "scenario: hello", "scenario: hello2", 1))
	for _, s := range []string{"hello", "hello2"} { // the chunk the agent sends is new to both
		p := filepath.Join(dir, s, "stdout.expected.jsonl")
		lines := strings.SplitAfter(readFile(t, p), "\n")
		writeFile(t, p, strings.Join(slices.DeleteFunc(lines, func(l string) bool { return strings.Contains(l, "agent_message_chunk") }), ""))
	}
	run := func(t *testing.T) { acpsnaptest.Run(t, acpsnaptest.Params{Dir: dir}) }
	passed, out := runTest("TestShared", run)
	if passed || !regexp.MustCompile(`the same change of stdout.expected.jsonl as hello2? \(its diff is shown there\)`).MatchString(out) {
		t.Fatalf("passed %v; want a failure naming the shared change once:\n%s", passed, out)
	}
	m := regexp.MustCompile(`stdout.expected.jsonl changed the same way in 2 scenarios; accept once with: go test \./acpsnaptest -run '([^']*)' -args -(acpsnap\.update)\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("the output lacks the accept-once line with go test … -acpsnap.update:\n%s", out)
	}
	write := flag.Lookup(m[2])
	write.Value.Set("true")
	passed, out = runFiltered(t, m[1], "TestShared", run)
	write.Value.Set("false")
	if !passed {
		t.Fatalf("the printed command failed:\n%s", out)
	}
	if passed, out := runTest("TestShared", run); !passed {
		t.Errorf("the run after the printed command failed:\n%s", out)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDirFound: without Params.Dir, Run finds the corpus as the acpsnap
// command finds one without -dir: here the only corpus below the package
// folder; with two below, it fails and lists them.
func TestDirFound(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	copyTree(t, filepath.Join(wd, "testdata/example"), filepath.Join(root, "testdata", "acp"))
	t.Chdir(root)
	passed, out := runTest("TestFound", func(t *testing.T) { acpsnaptest.Run(t, acpsnaptest.Params{}) })
	if !passed { // a corpus not found, or found empty, fails
		t.Errorf("the only corpus below: failed, want it found and passing:\n%s", out)
	}
	copyTree(t, filepath.Join(wd, "testdata/example"), filepath.Join(root, "other"))
	passed, out = runTest("TestFound", func(t *testing.T) { acpsnaptest.Run(t, acpsnaptest.Params{}) })
	if want := "2 corpora below the current folder"; passed || !strings.Contains(out, want) || !strings.Contains(out, "choose one with Params.Dir") {
		t.Errorf("two corpora below: passed %v, want a failure saying %q:\n%s", passed, want, out)
	}
}
