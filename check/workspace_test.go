package check

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
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
