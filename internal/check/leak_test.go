package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/secrets"
)

// TestRecordWithoutFixtureDiffsNothing: a first recording has nothing to
// compare with, so it writes without computing a diff (a 40,000-line
// answer against empty files cost gigabytes).
func TestRecordWithoutFixtureDiffsNothing(t *testing.T) {
	dir := t.TempDir()
	var big strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&big, "{\"delta\":%d}\n", i)
	}
	got := &scenario.Transcript{Stdout: []byte(big.String()), Logs: [][]byte{[]byte("{\"type\":\"session\"}\n")}}
	c := newChecker(dir, Config{Settings: harness.Settings{Mode: Record}}, pass{direct: true}, nil)
	c.s = scenario.Load(dir)
	c.fx = fixtureSide(c.s, rules{}, nil)
	o := c.compare(context.Background(), Outcome{Name: "new"}, got)
	if o.Status != Passed || o.Diff != "" || len(o.Wrote) != 2 {
		t.Fatalf("outcome %s, %d diff bytes, wrote %v; want passed, no diff, two files", o.Status, len(o.Diff), o.Wrote)
	}
}

// TestLeakedAndShown: a live transcript holding a secret value is refused
// with its place, and what an outcome shows never holds the value.
func TestLeakedAndShown(t *testing.T) {
	leaks := secrets.New(map[string]string{"DEEPSEEK_API_KEY": "sk-test-0123456789"}, nil)
	got := &scenario.Transcript{Stdout: []byte("{}\n"), Logs: [][]byte{[]byte("{}\n{\"out\":\"DEEPSEEK_API_KEY=sk-test-0123456789\"}\n")}}
	err := leaked(leaks, "snapshots/x", got, nil)
	want := filepath.Join("snapshots/x", scenario.SessionFile) + ":2: holds the value of DEEPSEEK_API_KEY"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "sk-test") {
		t.Fatalf("leaked = %v, want %q without the value", err, want)
	}
	cause := errors.New("agent said sk-test-0123456789\x1b[2K")
	o := shown(leaks, Outcome{Reason: cause.Error(), Err: cause, Diff: "+sk-test-0123456789\n", Stderr: "sk-test-0123456789"})
	for _, s := range []string{o.Reason, o.Err.Error(), o.Diff, o.Stderr} {
		if strings.Contains(s, "sk-test") || strings.Contains(s, "\x1b") {
			t.Errorf("shown outcome holds the value or an escape: %q", s)
		}
	}
	if !errors.Is(o.Err, cause) {
		t.Errorf("the redacted error lost its cause")
	}
}

// TestLeakedCassetteAndWorkspace: the key in a cassette the run harvested
// or in a file the agent left in the cwd (workspace.expected/) is refused
// with its place, before anything is written.
func TestLeakedCassetteAndWorkspace(t *testing.T) {
	leaks := secrets.New(map[string]string{"OPENAI_API_KEY": "sk-test-0123456789"}, nil)
	clean := &scenario.Transcript{Stdout: []byte("{}\n"), Logs: [][]byte{[]byte("{}\n")}}
	withCassette := &scenario.Transcript{Stdout: clean.Stdout, Logs: clean.Logs,
		Raw: map[string][]byte{scenario.MCPCassetteFile("echo"): []byte("{}\n{\"env\":\"sk-test-0123456789\"}\n")}}
	if err := leaked(leaks, "snapshots/x", withCassette, nil); err == nil || !strings.Contains(err.Error(), scenario.MCPCassetteFile("echo")+":2: holds the value of OPENAI_API_KEY") {
		t.Errorf("cassette: leaked = %v", err)
	}
	dir := t.TempDir()
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "stolen.txt"), []byte("OPENAI_API_KEY=sk-test-0123456789\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, scenario.ExpectedDir), 0o755); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(dir, t.TempDir())
	if err := ws.take(cwd); err != nil {
		t.Fatal(err)
	}
	defer ws.remove()
	want := filepath.Join(dir, scenario.ExpectedDir, "stolen.txt") + ":1: holds the value of OPENAI_API_KEY"
	if err := leaked(leaks, dir, clean, ws); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "sk-test") {
		t.Errorf("workspace: leaked = %v, want %q", err, want)
	}
}
