package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/acpsnap/acpsnap/scenario"
	"github.com/google/go-cmp/cmp"
)

// TestWriteFixtureAllOrNothing: when one file cannot be written, nothing
// is replaced (workspace.expected/ neither) and nothing stays behind.
func TestWriteFixtureAllOrNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "scn")
	for name, content := range map[string]string{scenario.StdoutFile: "old\n", scenario.SessionFile: "old log\n", scenario.ExpectedDir + "/f": "old f\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cwd := t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "f"), []byte("new f\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws := newWorkspace(dir, t.TempDir())
	if err := ws.take(cwd); err != nil {
		t.Fatal(err)
	}
	defer ws.remove()
	got := &scenario.Transcript{Stdout: []byte("new\n"), Logs: [][]byte{[]byte("new log\n")},
		Raw: map[string][]byte{"missing-dir/" + scenario.SessionFile: []byte("x\n")}}
	o := Outcome{}.write(dir, got, Refresh, ws)
	if o.Err == nil {
		t.Fatal("write succeeded with an unwritable file")
	}
	want := map[string]string{scenario.StdoutFile: "old\n", scenario.SessionFile: "old log\n", scenario.ExpectedDir + "/f": "old f\n"}
	if d := cmp.Diff(want, files(t, dir)); d != "" {
		t.Errorf("scenario after a failed write (-want +got):\n%s", d)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("%d entries beside the scenario, want none but it (no stage left)", len(entries)-1)
	}
}

// files maps the regular files under root (slash paths) to their content.
func files(t *testing.T, root string) map[string]string {
	t.Helper()
	got := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			rel, _ := filepath.Rel(root, p)
			b, _ := os.ReadFile(p)
			got[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return got
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
	wrote, err := writeFixture(dir, map[string][]byte{scenario.SessionFile: []byte("s\n"), scenario.ChildFile(1): []byte("c\n")}, nil, true)
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
