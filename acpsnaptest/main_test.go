package acpsnaptest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/acpsnaptest"
	"github.com/acpsnap/acpsnap/internal/fakeagent"
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
