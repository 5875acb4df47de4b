package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/textdiff"
)

func TestCwdTokens(t *testing.T) {
	cwd := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(cwd, link); err != nil {
		t.Fatal(err)
	}
	type tc struct {
		name string
		cwd  string
		in   string
		want string
	}
	for _, c := range []tc{
		{"the cwd", cwd, "at " + cwd + "/src\n", "at {{cwd}}/src\n"},
		{"every occurrence", cwd, cwd + " " + cwd, "{{cwd}} {{cwd}}"},
		{"a real path behind a link", link, "in " + cwd + "\n", "in {{cwd}}\n"},
		{"binary left alone", cwd, cwd + "\x00", cwd + "\x00"},
		{"no cwd", cwd, "plain\n", "plain\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := string(cwdTokens(c.cwd)("f", []byte(c.in)))
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("cwdTokens (-want +got):\n%s", d)
			}
		})
	}
}

// TestWorkspaceCopiedOnlyWhenNeeded: a replay's cwd equal to
// workspace.expected (after {{cwd}}) is compared in place and never
// copied; a differing one, or any cwd when the copy is needed (a writing
// mode), is copied and compared from the copy.
func TestWorkspaceCopiedOnlyWhenNeeded(t *testing.T) {
	type tc struct {
		name     string
		copy     bool
		got      string // the cwd's note.txt, with @ for the cwd
		wantCopy bool
		wantDiff bool
	}
	for _, c := range []tc{
		{name: "equal replay", got: "at @\n"},
		{name: "equal, copy needed", copy: true, got: "at @\n", wantCopy: true},
		{name: "differing replay", got: "at @ changed\n", wantCopy: true, wantDiff: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, tmp, cwd := t.TempDir(), t.TempDir(), t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, "workspace.expected"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "workspace.expected", "note.txt"), []byte("at {{cwd}}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(cwd, "note.txt"), []byte(strings.ReplaceAll(c.got, "@", cwd)), 0o644); err != nil {
				t.Fatal(err)
			}
			w := newWorkspace(dir, tmp)
			w.copy = c.copy
			if err := w.take(cwd); err != nil {
				t.Fatal(err)
			}
			defer w.remove()
			entries, err := os.ReadDir(tmp)
			if err != nil {
				t.Fatal(err)
			}
			if copied := len(entries) > 0; copied != c.wantCopy {
				t.Errorf("copied the cwd into %s: %v, want %v", tmp, copied, c.wantCopy)
			}
			d, _, err := w.compare(textdiff.Config{})
			if err != nil {
				t.Fatal(err)
			}
			if (d != "") != c.wantDiff {
				t.Errorf("compare: diff %q, want a diff: %v", d, c.wantDiff)
			}
		})
	}
}
