package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// bazelTree lays out what Bazel hands a test, under base: the workspace
// (ws), the execution root's symlink forest (execroot/__main__/corpus ->
// ws/corpus) and the runfiles tree (rf), whose files are links into the
// execution root. The corpus holds a fixture, a generated file, and two
// links a pull request could commit: to a credential outside the
// workspace and to another fixture. It returns the runfiles root.
func bazelTree(t *testing.T, base string) string {
	t.Helper()
	files := map[string]string{
		"ws/corpus/scn/input.json":                           "{}\n",
		"secret/credentials":                                 "key\n",
		"execroot/__main__/bazel-out/k8/bin/corpus/scn/gen":  "generated\n",
		"ws/corpus/scn/workspace/notes.txt":                  "notes\n",
		"rf/__main__/.keep":                                  "",
		"rf/__main__/corpus/scn/workspace/.keep":             "",
		"execroot/__main__/.keep":                            "",
		"ws/corpus/other/.keep":                              "",
		"rf/__main__/corpus/other/.keep":                     "",
		"execroot/__main__/bazel-out/k8/bin/corpus/other/.k": "",
	}
	for name, content := range files {
		p := filepath.Join(base, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		"ws/corpus/scn/evil":                         "../../../secret/credentials", // committed: to a credential
		"ws/corpus/scn/inner":                        "input.json",                  // committed: to another fixture
		"execroot/__main__/corpus":                   filepath.Join(base, "ws/corpus"),
		"rf/__main__/corpus/scn/input.json":          filepath.Join(base, "execroot/__main__/corpus/scn/input.json"),
		"rf/__main__/corpus/scn/gen":                 filepath.Join(base, "execroot/__main__/bazel-out/k8/bin/corpus/scn/gen"),
		"rf/__main__/corpus/scn/evil":                filepath.Join(base, "execroot/__main__/corpus/scn/evil"),
		"rf/__main__/corpus/scn/inner":               filepath.Join(base, "execroot/__main__/corpus/scn/inner"),
		"rf/__main__/corpus/scn/workspace/notes.txt": filepath.Join(base, "execroot/__main__/corpus/scn/workspace/notes.txt"),
		"rf/MANIFEST":                                filepath.Join(base, "ws/corpus/scn/input.json"),
		"elsewhere/in.json":                          filepath.Join(base, "execroot/__main__/corpus/scn/input.json"),
	}
	for name, target := range links {
		p := filepath.Join(base, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.Symlink(target, p); err != nil {
			t.Skipf("no symlinks: %v", err)
		}
	}
	return filepath.Join(base, "rf")
}

func TestRunfiles(t *testing.T) {
	base := t.TempDir()
	rf := bazelTree(t, base)
	scn := filepath.Join(rf, "__main__/corpus/scn")
	t.Cleanup(func() { Trust() })
	type testCase struct {
		path string
		want string // the content read; "": refused as a link
	}
	cases := []testCase{
		{filepath.Join(scn, "input.json"), "{}\n"},
		{filepath.Join(scn, "gen"), "generated\n"},
		{filepath.Join(scn, "workspace/notes.txt"), "notes\n"},
		{filepath.Join(scn, "evil"), ""},                     // a committed link to a credential
		{filepath.Join(scn, "inner"), ""},                    // a committed link to another fixture
		{filepath.Join(rf, "MANIFEST"), ""},                  // no repository folder
		{filepath.Join(base, "elsewhere/in.json"), ""},       // outside the runfiles tree
		{filepath.Join(base, "ws/corpus/scn/evil"), ""},      // the workspace itself: no exception
		{filepath.Join(base, "rf/__main__/../MANIFEST"), ""}, // climbs out of the repository folder
		{filepath.Join(scn, "../scn/../../corpus/scn/evil"), ""},
	}
	read := func(tc testCase) {
		t.Helper()
		b, err := Read(tc.path, 100)
		switch {
		case tc.want == "" && !errors.Is(err, ErrNotRegular):
			t.Errorf("Read(%s) = %q, %v; want refused as a link", tc.path, b, err)
		case tc.want != "" && (err != nil || string(b) != tc.want):
			t.Errorf("Read(%s) = %q, %v; want %q", tc.path, b, err, tc.want)
		}
	}
	for _, tc := range cases { // not trusted yet: every link is refused
		read(testCase{path: tc.path})
	}
	Trust(rf, "", "relative/ignored")
	for _, tc := range cases {
		read(tc)
	}
	// In a tree: CopyTree copies the mirrored files as files, and a
	// committed link stays a link (refused when confined).
	dst := t.TempDir()
	if err := CopyTree(filepath.Join(scn, "workspace"), dst, TreeConfig{Confine: true}); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Lstat(filepath.Join(dst, "notes.txt")); err != nil || !st.Mode().IsRegular() {
		t.Errorf("CopyTree: notes.txt = %v, %v; want a regular file", st, err)
	}
	if err := CopyTree(scn, t.TempDir(), TreeConfig{Confine: true}); err == nil {
		t.Error("CopyTree of a tree holding a committed link out of it: no error")
	}
}
