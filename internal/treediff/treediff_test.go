package treediff

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tree is a test tree: path -> spec. "dir/" is a directory, "-> t" a
// symlink to t, anything else a file's content; a "0755 " prefix on a file
// sets its mode (default 0644).
type tree map[string]string

func (tr tree) write(t *testing.T, root string) {
	t.Helper()
	for rel, spec := range tr {
		p := filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(rel, "/")))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		var err error
		switch {
		case strings.HasSuffix(rel, "/"):
			err = os.MkdirAll(p, 0o755)
		case strings.HasPrefix(spec, "-> "):
			err = os.Symlink(strings.TrimPrefix(spec, "-> "), p)
		default:
			mode := os.FileMode(0o644)
			if rest, ok := strings.CutPrefix(spec, "0755 "); ok {
				mode, spec = 0o755, rest
			}
			if err = os.WriteFile(p, []byte(spec), mode); err == nil {
				err = os.Chmod(p, mode)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

func dirs(t *testing.T, want, got tree) (string, string) {
	t.Helper()
	w, g := filepath.Join(t.TempDir(), "want"), filepath.Join(t.TempDir(), "got")
	for _, d := range []string{w, g} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	want.write(t, w)
	got.write(t, g)
	return w, g
}

// cwdToken is the normalizer a caller would pass: the run's cwd back to
// {{cwd}}, in text files only.
func cwdToken(cwd string) func(string, []byte) []byte {
	return func(_ string, data []byte) []byte {
		if !IsText(data) {
			return data
		}
		return bytes.ReplaceAll(data, []byte(cwd), []byte("{{cwd}}"))
	}
}

func lineDiff(_ string, want, got []byte) string {
	return fmt.Sprintf("-%q\n+%q\n", want, got)
}

func TestCompare(t *testing.T) {
	base := tree{"a.txt": "hello\n", "bin/run.sh": "0755 #!/bin/sh\n", "link": "-> a.txt", "empty/": ""}
	with := func(changes tree, drop ...string) tree {
		out := tree{}
		for k, v := range base {
			out[k] = v
		}
		for _, k := range drop {
			delete(out, k)
		}
		for k, v := range changes {
			out[k] = v
		}
		return out
	}
	type tcase struct {
		name string
		got  tree
		want []Difference
	}
	for _, tc := range []tcase{
		{name: "equal", got: with(nil)},
		{name: "changed byte", got: with(tree{"a.txt": "hellO\n"}),
			want: []Difference{{Path: "a.txt", Kind: Content, Diff: "-\"hello\\n\"\n+\"hellO\\n\"\n"}}},
		{name: "missing file", got: with(nil, "a.txt", "link"),
			want: []Difference{{Path: "a.txt", Kind: Missing, Want: "file"}, {Path: "link", Kind: Missing, Want: "symlink"}}},
		{name: "extra file", got: with(tree{"bin/new": "x", "a-b": "y"}),
			want: []Difference{{Path: "a-b", Kind: Extra, Got: "file"}, {Path: "bin/new", Kind: Extra, Got: "file"}}},
		{name: "changed mode", got: with(tree{"bin/run.sh": "#!/bin/sh\n"}),
			want: []Difference{{Path: "bin/run.sh", Kind: Mode, Want: "-rwxr-xr-x", Got: "-rw-r--r--"}}},
		{name: "changed symlink", got: with(tree{"link": "-> bin/run.sh"}),
			want: []Difference{{Path: "link", Kind: Link, Want: "a.txt", Got: "bin/run.sh"}}},
		{name: "missing empty dir", got: with(nil, "empty/"),
			want: []Difference{{Path: "empty", Kind: Missing, Want: "directory"}}},
		{name: "extra dir listed once", got: with(tree{"new/a": "1", "new/b/c": "2"}),
			want: []Difference{{Path: "new", Kind: Extra, Got: "directory"}}},
		{name: "missing dir beside a like-named file", got: with(tree{"bin-x": "y"}, "bin/run.sh"),
			want: []Difference{{Path: "bin", Kind: Missing, Want: "directory"}, {Path: "bin-x", Kind: Extra, Got: "file"}}},
		{name: "file became dir", got: with(tree{"a.txt/inner": "x"}, "a.txt"),
			want: []Difference{{Path: "a.txt", Kind: Type, Want: "file", Got: "directory"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, g := dirs(t, base, tc.got)
			got, err := Compare(w, g, Config{Diff: lineDiff})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Compare (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCompareNormalize(t *testing.T) {
	w, g := dirs(t, tree{"notes.md": "saved in {{cwd}}/notes.md\n", "l": "-> {{cwd}}/notes.md", "bin": "\x00{{cwd}}"}, nil)
	tree{"notes.md": "saved in " + g + "/notes.md\n", "l": "-> " + g + "/notes.md", "bin": "\x00" + g}.write(t, g)
	got, err := Compare(w, g, Config{Normalize: cwdToken(g)})
	if err != nil {
		t.Fatal(err)
	}
	want := []Difference{{Path: "bin", Kind: Content, Diff: fmt.Sprintf("want 8 bytes, got %d bytes", 1+len(g))}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Compare (-want +got):\n%s", diff)
	}
}

func TestCompareFullModes(t *testing.T) {
	w, g := dirs(t, tree{"f": "x"}, tree{"f": "x"})
	if err := os.Chmod(filepath.Join(g, "f"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := Compare(w, g, Config{Modes: 0o777})
	if err != nil {
		t.Fatal(err)
	}
	want := []Difference{{Path: "f", Kind: Mode, Want: "-rw-r--r--", Got: "-rw-------"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Compare (-want +got):\n%s", diff)
	}
	if d, _ := Compare(w, g, Config{}); len(d) != 0 {
		t.Errorf("default Modes compares more than the executable bit: %v", d)
	}
}

func TestCompareErrors(t *testing.T) {
	w, _ := dirs(t, nil, nil)
	if _, err := Compare(w, filepath.Join(w, "absent"), Config{}); err == nil || !strings.Contains(err.Error(), "absent") {
		t.Errorf("missing got tree: %v", err)
	}
	if _, err := Compare(filepath.Join(w, "absent"), w, Config{}); err == nil || !strings.Contains(err.Error(), "expected tree") {
		t.Errorf("missing expected tree: %v", err)
	}
}

func ExampleFormat() {
	fmt.Print(Format([]Difference{
		{Path: "a.txt", Kind: Content, Diff: "-hello\n+hellO\n"},
		{Path: "bin/run.sh", Kind: Mode, Want: "-rwxr-xr-x", Got: "-rw-r--r--"},
		{Path: "link", Kind: Link, Want: "a.txt", Got: "b.txt"},
		{Path: "new", Kind: Extra, Got: "directory"},
		{Path: "old.txt", Kind: Missing, Want: "file"},
	}, 0))
	// Output:
	// a.txt: content differs:
	//   -hello
	//   +hellO
	// bin/run.sh: mode -rw-r--r--, want -rwxr-xr-x
	// link: symlink to "b.txt", want "a.txt"
	// extra directory new
	// missing file old.txt
}

func TestFormatCap(t *testing.T) {
	var ds []Difference
	for i := range 100 {
		ds = append(ds, Difference{Path: fmt.Sprintf("f%03d", i), Kind: Missing, Want: "file"})
	}
	out := Format(ds, 100)
	if diff := cmp.Diff("missing file f000\nmissing file f001\nmissing file f002\nmissing file f003\nmissing file f004\n… 95 more differences left out (output capped at 100 bytes)\n", out); diff != "" {
		t.Errorf("Format (-want +got):\n%s", diff)
	}
	if Format(nil, 0) != "" {
		t.Error("Format(nil) is not empty")
	}
}

// sparse makes a sparse file of size bytes at p: no disk, no memory.
func sparse(t *testing.T, p string, size int64) {
	t.Helper()
	f, err := os.Create(p)
	if err == nil {
		err = f.Truncate(size)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatal(err)
	}
}

// TestRefusals: what an agent can plant in either tree is an error naming
// its path, never a read that blocks, follows a link or takes the memory
// (a 4 GB sparse file ran acpsnap out of memory): a file over the cap (a
// cap of 64 proven with 65 bytes), a FIFO, a link out of the tree.
func TestRefusals(t *testing.T) {
	type tcase struct {
		name  string
		plant func(t *testing.T, dir string)
		err   string
	}
	for _, tc := range []tcase{
		{"over the cap", func(t *testing.T, dir string) { sparse(t, filepath.Join(dir, "big.img"), 65) },
			"big.img: 65 bytes, more than the 64 allowed"},
		{"fifo", func(t *testing.T, dir string) {
			if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, "pipe: not a file, folder or symbolic link"},
		{"outside link", func(t *testing.T, dir string) {
			if err := os.Symlink("/etc/passwd", filepath.Join(dir, "l")); err != nil {
				t.Fatal(err)
			}
		}, `l: symlink to "/etc/passwd" points out of the tree`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, g := dirs(t, tree{"big.img": "x"}, nil)
			tc.plant(t, g)
			if _, err := Compare(w, g, Config{MaxFileBytes: 64}); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Compare error = %v, want %q", err, tc.err)
			}
			if _, err := Compare(g, w, Config{MaxFileBytes: 64}); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Compare (planted in the expected tree) error = %v, want %q", err, tc.err)
			}
			if err := Check(g, Config{MaxFileBytes: 64}); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Check error = %v, want %q", err, tc.err)
			}
			if err := Check(w, Config{MaxFileBytes: 64}); err != nil {
				t.Errorf("Check of a clean tree: %v", err)
			}
			parent := t.TempDir()
			dst := filepath.Join(parent, "exp")
			tree{"keep": "kept"}.write(t, dst)
			if err := Copy(g, dst, Config{MaxFileBytes: 64}); err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Copy error = %v, want %q", err, tc.err)
			}
			assertOnly(t, parent, "exp") // no temporary tree left
		})
	}
}

// TestCompareStreams: files of equal size are compared in pieces, the cap
// still applies, and a change past the first piece is found.
func TestCompareStreams(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 1<<13) // 128 KiB: two pieces
	changed := big[:len(big)-1] + "!"
	w, g := dirs(t, tree{"same": big, "changed": big}, tree{"same": big, "changed": changed})
	got, err := Compare(w, g, Config{MaxFileBytes: int64(len(big))})
	if err != nil {
		t.Fatal(err)
	}
	want := []Difference{{Path: "changed", Kind: Content, Diff: fmt.Sprintf("want %d bytes, got %d bytes", len(big), len(big))}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Compare (-want +got):\n%s", diff)
	}
	if _, err := Compare(w, g, Config{MaxFileBytes: int64(len(big)) - 1}); err == nil || !strings.Contains(err.Error(), "more than the") {
		t.Errorf("Compare over the cap: %v", err)
	}
}
