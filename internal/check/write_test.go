package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/google/go-cmp/cmp"
)

// TestWriteFixtureAllOrNothing: when one file cannot be written, no file is
// replaced and no temporary file stays behind.
func TestWriteFixtureAllOrNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scenario")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, scenario.StdoutFile), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := writeFixture(dir, map[string][]byte{
		scenario.StdoutFile:                   []byte("new\n"),
		"missing-dir/" + scenario.SessionFile: []byte("x\n"),
	}, nil, true, func(string) error { return nil })
	if err == nil {
		t.Fatal("writeFixture succeeded with an unwritable file")
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if d := cmp.Diff([]string{scenario.StdoutFile}, names); d != "" {
		t.Errorf("folder after a failed write (-want +got):\n%s", d)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, scenario.StdoutFile)); string(b) != "old\n" {
		t.Errorf("stdout fixture was replaced: %q", b)
	}
}

// TestWriteFixturePrunesChildren: refresh removes child logs the run no
// longer produced.
func TestWriteFixturePrunesChildren(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{scenario.ChildFile(1), scenario.ChildFile(2)} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wrote, err := writeFixture(dir, map[string][]byte{scenario.SessionFile: []byte("s\n"), scenario.ChildFile(1): []byte("c\n")}, nil, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{scenario.ChildFile(1), scenario.SessionFile}, wrote); d != "" {
		t.Errorf("wrote (-want +got):\n%s", d)
	}
	if st, err := os.Stat(filepath.Join(dir, scenario.SessionFile)); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("written fixture mode = %v, %v; want 0644", st.Mode().Perm(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, scenario.ChildFile(2))); !os.IsNotExist(err) {
		t.Errorf("stale %s survived: %v", scenario.ChildFile(2), err)
	}
}

// TestWriteFixtureReplaysFirst: what a write is about to publish is
// verified in a copy beside the scenario holding the new files; a refused
// verify leaves the scenario exactly as it was and no copy behind, a
// passing one publishes the copy.
func TestWriteFixtureReplaysFirst(t *testing.T) {
	for _, pass := range []bool{false, true} {
		parent := t.TempDir()
		dir := filepath.Join(parent, "scenario")
		if err := os.MkdirAll(filepath.Join(dir, "workspace"), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range map[string]string{scenario.StdoutFile: "old\n", "workspace/a.txt": "a\n"} {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var staged string
		_, err := writeFixture(dir, map[string][]byte{scenario.StdoutFile: []byte("new\n")}, nil, false, func(stage string) error {
			b, _ := os.ReadFile(filepath.Join(stage, scenario.StdoutFile))
			w, _ := os.ReadFile(filepath.Join(stage, "workspace/a.txt"))
			staged = string(b) + string(w)
			if !pass {
				return &unverified{o: Outcome{Reason: "output differs from the fixture"}}
			}
			return nil
		})
		if d := cmp.Diff("new\na\n", staged); d != "" {
			t.Errorf("pass=%v: what the verify saw (-want +got):\n%s", pass, d)
		}
		want := map[bool]string{false: "old\n", true: "new\n"}[pass]
		if b, _ := os.ReadFile(filepath.Join(dir, scenario.StdoutFile)); string(b) != want {
			t.Errorf("pass=%v: stdout fixture = %q, want %q", pass, b, want)
		}
		if (err == nil) != pass {
			t.Errorf("pass=%v: err = %v", pass, err)
		}
		if entries, _ := os.ReadDir(parent); len(entries) != 1 {
			t.Errorf("pass=%v: %d entries beside the scenario, want none (no copy left)", pass, len(entries)-1)
		}
	}
}
