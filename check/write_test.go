package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acpsnap/acpsnap/scenario"
	"github.com/google/go-cmp/cmp"
)

// TestWriteFixtureAllOrNothing: when one file cannot be written, no file is
// replaced and no temporary file stays behind.
func TestWriteFixtureAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, scenario.StdoutFile), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := writeFixture(dir, map[string][]byte{
		scenario.StdoutFile:                   []byte("new\n"),
		"missing-dir/" + scenario.SessionFile: []byte("x\n"),
	}, true)
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
	wrote, err := writeFixture(dir, map[string][]byte{scenario.SessionFile: []byte("s\n"), scenario.ChildFile(1): []byte("c\n")}, true)
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
