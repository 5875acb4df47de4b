package safefile

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// listTree describes the tree under root: path -> "dir 0755", "file 0600 <content>",
// "link <target>".
func listTree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case fi.IsDir():
			out[rel] = "dir " + fi.Mode().Perm().String()
		case fi.Mode()&os.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			out[rel] = "link " + target
		default:
			b, _ := os.ReadFile(p)
			out[rel] = "file " + fi.Mode().Perm().String() + " " + string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestCopyTree(t *testing.T) {
	src := t.TempDir()
	for _, d := range []string{"ro", "skip.tmp"} {
		os.Mkdir(filepath.Join(src, d), 0o755)
	}
	os.WriteFile(filepath.Join(src, "run.sh"), []byte("#!/bin/sh\n"), 0o755)
	os.WriteFile(filepath.Join(src, "ro", "f"), []byte("in "+src), 0o600)
	os.WriteFile(filepath.Join(src, "skip.tmp", "x"), nil, 0o600)
	os.Symlink("ro/f", filepath.Join(src, "l"))
	os.Chmod(filepath.Join(src, "ro"), 0o555)
	t.Cleanup(func() { os.Chmod(filepath.Join(src, "ro"), 0o755) })
	type tcase struct {
		name string
		cfg  TreeConfig
		want map[string]string
	}
	plain := map[string]string{"ro": "dir -r-xr-xr-x", "ro/f": "file -rw------- in " + src, "run.sh": "file -rwxr-xr-x #!/bin/sh\n", "l": "link ro/f"}
	for _, tc := range []tcase{
		{"streamed", TreeConfig{Skip: func(n string) bool { return strings.HasSuffix(n, ".tmp") }}, plain},
		{"linked", TreeConfig{Link: true, Skip: func(n string) bool { return strings.HasSuffix(n, ".tmp") }}, plain},
		{"transformed", TreeConfig{Transform: func(rel string, b []byte) []byte { return []byte(strings.ReplaceAll(string(b), src, "{{cwd}}")) }},
			map[string]string{"ro": "dir -r-xr-xr-x", "ro/f": "file -rw------- in {{cwd}}", "run.sh": "file -rwxr-xr-x #!/bin/sh\n", "l": "link ro/f",
				"skip.tmp": "dir -rwxr-xr-x", "skip.tmp/x": "file -rw------- "}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := t.TempDir()
			if err := CopyTree(src, dst, tc.cfg); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.Chmod(filepath.Join(dst, "ro"), 0o755) })
			if diff := cmp.Diff(tc.want, listTree(t, dst)); diff != "" {
				t.Errorf("copied tree (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCopyTreeRefuses: a FIFO, a file over the cap (64 proven with 65
// sparse bytes: never read) and, confined, a link out of the tree are
// refused by their path in the tree.
func TestCopyTreeRefuses(t *testing.T) {
	type tcase struct {
		name  string
		plant func(dir string) error
		cfg   TreeConfig
		err   string
	}
	for _, tc := range []tcase{
		{"fifo", func(dir string) error { return syscall.Mkfifo(filepath.Join(dir, "d", "pipe"), 0o644) }, TreeConfig{},
			"safefile: d/pipe: not a file, folder or symbolic link (named pipe)"},
		{"over the cap", func(dir string) error { return os.Truncate(filepath.Join(dir, "d", "f"), 65) }, TreeConfig{MaxFileBytes: 64},
			"safefile: d/f: 65 bytes, more than the 64 allowed"},
		{"over the cap, transformed", func(dir string) error { return os.Truncate(filepath.Join(dir, "d", "f"), 65) },
			TreeConfig{MaxFileBytes: 64, Transform: func(_ string, b []byte) []byte { return b }}, "safefile: d/f: 65 bytes, more than the 64 allowed"},
		{"outside link", func(dir string) error { return os.Symlink("../../etc", filepath.Join(dir, "d", "l")) }, TreeConfig{Confine: true},
			`safefile: d/l: symlink to "../../etc" points out of the tree`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := t.TempDir()
			os.Mkdir(filepath.Join(src, "d"), 0o755)
			os.WriteFile(filepath.Join(src, "d", "f"), []byte("x"), 0o644)
			if err := tc.plant(src); err != nil {
				t.Fatal(err)
			}
			err := CopyTree(src, t.TempDir(), tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("CopyTree error = %v, want %q", err, tc.err)
			}
		})
	}
}

func TestEqual(t *testing.T) {
	dir := t.TempDir()
	big := strings.Repeat("x", 100<<10) // two pieces and a bit
	files := map[string]string{"a": big, "b": big, "c": big[:len(big)-1] + "y", "short": "x"}
	for n, s := range files {
		os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644)
	}
	p := func(n string) string { return filepath.Join(dir, n) }
	type tcase struct {
		a, b string
		max  int64
		want bool
		err  string
	}
	for _, tc := range []tcase{
		{"a", "b", 0, true, ""},
		{"a", "c", 0, false, ""},
		{"a", "short", 0, false, ""},
		{"a", "b", int64(len(big)) - 1, false, "more than the"},
	} {
		got, err := Equal(p(tc.a), tc.a, p(tc.b), tc.b, tc.max)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Equal(%s, %s) error = %v, want %q", tc.a, tc.b, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("Equal(%s, %s) = %v, %v; want %v", tc.a, tc.b, got, err, tc.want)
		}
	}
}
