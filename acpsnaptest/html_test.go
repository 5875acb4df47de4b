package acpsnaptest_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/acpsnaptest"
)

// TestHTMLEnv: with ACPSNAP_HTML set, Run writes the HTML report of its
// scenarios once they are done: a failure with what the run produced and
// the go test command that accepts it; unset, nothing is written.
func TestHTMLEnv(t *testing.T) {
	dir := brokenExample(t)
	page := filepath.Join(t.TempDir(), "report.html")
	t.Setenv(acpsnaptest.HTMLEnv, page)
	passed, out := runTest("TestBroken", func(t *testing.T) { acpsnaptest.Run(t, acpsnaptest.Params{Dir: dir}) })
	if passed {
		t.Fatalf("the broken corpus passed:\n%s", out)
	}
	got, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("no report: %v\n%s", err, out)
	}
	for _, want := range []string{
		`<section class="scenario failed" id="s-hello">`,
		`Transcript <small>what the run produced</small>`,
		`<div class="body">ok</div>`,
		`Accept with: <code>go test ./acpsnaptest -run &#39;TestBroken/^hello$&#39; -args -acpsnap.update</code>`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("the report lacks %q", want)
		}
	}

	t.Setenv(acpsnaptest.HTMLEnv, "")
	os.Remove(page)
	runTest("TestBroken", func(t *testing.T) { acpsnaptest.Run(t, acpsnaptest.Params{Dir: dir}) })
	if _, err := os.Stat(page); err == nil {
		t.Errorf("ACPSNAP_HTML unset, yet %s was written", page)
	}
}

// brokenExample is a copy of the example corpus whose hello fixture says
// "fine" where the agent says "ok".
func brokenExample(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	copyTree(t, "testdata/example", dir)
	stdout := filepath.Join(dir, "hello", "stdout.expected.jsonl")
	b, err := os.ReadFile(stdout)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, stdout, string(bytes.Replace(b, []byte(`"text":"ok"`), []byte(`"text":"fine"`), 1)))
	return dir
}
