package check

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/secrets"
)

// TestCaptureTree: the folder a capture keeps is bounded, keeps its links
// inside it, leaves out what is not the project's, and never holds a key.
func TestCaptureTree(t *testing.T) {
	type testCase struct {
		name     string
		files    map[string]string // path → content; "->target" is a link
		maxFiles int
		want     []string // the copy's entries, or
		wantErr  string
	}
	cases := []testCase{
		{name: "what is kept", files: map[string]string{"a.txt": "a", "src/b.go": "b", "ln": "->src/b.go",
			".git/HEAD": "ref", ".env": "OPENAI_API_KEY=x", "corpus/x/input.json": "{}", ".a.publish-1-x/f": "f"},
			want: []string{"a.txt", "ln", "src", "src/b.go"}},
		{name: "a link out", files: map[string]string{"ln": "->../../etc/passwd"},
			wantErr: "ln is a link to ../../etc/passwd, outside the folder"},
		{name: "an absolute link", files: map[string]string{"ln": "->/etc/passwd"},
			wantErr: "ln is a link to /etc/passwd, outside the folder"},
		{name: "too many files", files: map[string]string{"a": "", "b": "", "c": ""}, maxFiles: 2,
			wantErr: "it holds more than 2 files: too many for a scenario's workspace"},
		{name: "a key in a file", files: map[string]string{"notes.md": "key: sk-tree-test-0123456789"},
			wantErr: "OPENAI_API_KEY"},
	}
	leaks := secrets.New(map[string]string{"OPENAI_API_KEY": "sk-tree-test-0123456789"}, nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cwd := t.TempDir()
			for p, content := range c.files {
				full := filepath.Join(cwd, p)
				os.MkdirAll(filepath.Dir(full), 0o755)
				var err error
				if target, ok := strings.CutPrefix(content, "->"); ok {
					err = os.Symlink(target, full)
				} else {
					err = os.WriteFile(full, []byte(content), 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			dst := filepath.Join(t.TempDir(), "copy")
			err := newCaptureTree(cwd, filepath.Join(cwd, "corpus"), c.maxFiles, 0).copy(dst, nil, leaks)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("got %v, want an error containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			filepath.WalkDir(dst, func(p string, _ os.DirEntry, _ error) error {
				if rel, _ := filepath.Rel(dst, p); rel != "." {
					got = append(got, filepath.ToSlash(rel))
				}
				return nil
			})
			slices.Sort(got)
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("copy (-want +got):\n%s", d)
			}
		})
	}
}
