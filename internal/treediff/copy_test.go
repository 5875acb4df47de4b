package treediff

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCopyRoundTrip(t *testing.T) {
	src := filepath.Join(t.TempDir(), "cwd")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	tree{"notes.md": "in " + src + "\n", "bin/run.sh": "0755 #!/bin/sh\n", "link": "-> bin/run.sh", "up": "-> bin/../notes.md", "empty/": "", "ro/f": "x"}.write(t, src)
	if err := os.Chmod(filepath.Join(src, "ro"), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(src, "ro"), 0o755) })
	dst := filepath.Join(t.TempDir(), "workspace.expected")
	tree{"stale.txt": "old"}.write(t, dst) // replaced whole
	cfg := Config{Normalize: cwdToken(src), Modes: 0o777}
	for range 2 { // a second copy replaces the first, read-only dir and all
		if err := Copy(src, dst, cfg); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Compare(dst, src, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Errorf("Compare after Copy: %v", got)
	}
	data, err := os.ReadFile(filepath.Join(dst, "notes.md"))
	if err != nil || string(data) != "in {{cwd}}\n" {
		t.Errorf("notes.md = %q, %v; want the token", data, err)
	}
	if _, err := os.Lstat(filepath.Join(dst, "stale.txt")); !os.IsNotExist(err) {
		t.Errorf("stale.txt survived the copy: %v", err)
	}
	assertOnly(t, filepath.Dir(dst), "workspace.expected")
}

func TestCopyRefuses(t *testing.T) {
	type tcase struct {
		name string
		tree tree
		err  string
	}
	for _, tc := range []tcase{
		{name: "absolute link", tree: tree{"l": "-> /etc/passwd"}, err: `l: symlink to "/etc/passwd" points out of the tree`},
		{name: "climbing link", tree: tree{"d/l": "-> ../../x"}, err: `d/l: symlink to "../../x" points out of the tree`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := t.TempDir()
			tc.tree.write(t, src)
			parent := t.TempDir()
			dst := filepath.Join(parent, "exp")
			tree{"keep": "kept"}.write(t, dst)
			err := Copy(src, dst, Config{})
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("Copy error = %v, want %q", err, tc.err)
			}
			if data, _ := os.ReadFile(filepath.Join(dst, "keep")); string(data) != "kept" {
				t.Errorf("dst changed by a failed copy")
			}
			assertOnly(t, parent, "exp")
		})
	}
	src := t.TempDir()
	if err := Copy(src, filepath.Join(src, "exp"), Config{}); err == nil || !strings.Contains(err.Error(), "inside") {
		t.Errorf("dst inside src: %v", err)
	}
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(src, link); err != nil {
		t.Fatal(err)
	}
	if err := Copy(link, filepath.Join(t.TempDir(), "exp"), Config{}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("src a symlink: %v", err)
	}
}

// assertOnly checks that dir holds exactly the named entries: no temporary
// or old tree left behind.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("%s entries (-want +got):\n%s", dir, diff)
	}
}
