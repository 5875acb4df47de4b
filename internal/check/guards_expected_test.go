package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

func TestCheckExpected(t *testing.T) {
	type tc struct {
		name  string
		build func(root string) error
		want  string // substring of the one violation; "": none
	}
	file := func(rel, content string) func(string) error {
		return func(root string) error { return os.WriteFile(filepath.Join(root, rel), []byte(content), 0o644) }
	}
	link := func(rel, target string) func(string) error {
		return func(root string) error { return os.Symlink(target, filepath.Join(root, rel)) }
	}
	for _, c := range []tc{
		{"a text file with {{cwd}}", file("a.txt", "at {{cwd}}/x\n"), ""},
		{"a binary file with braces", file("a.bin", "\x00{{home}}"), ""},
		{"a link inside the tree", link("l", "a.txt"), ""},
		{"another token", file("a.txt", "{{home}}/x"), "token {{home}}: only {{cwd}}"},
		{"a pending file", file("a.txt.new", "x"), "pending file inside the expected workspace"},
		{"an absolute link", link("l", "/etc/passwd"), `symbolic link to "/etc/passwd" leaves`},
		{"a climbing link", link("l", "../x"), `symbolic link to "../x" leaves`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, scenario.ExpectedDir)
			if err := os.Mkdir(root, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := c.build(root); err != nil {
				t.Fatal(err)
			}
			vs := checkExpected(dir)
			switch {
			case c.want == "" && len(vs) > 0:
				t.Errorf("checkExpected = %v, want none", vs)
			case c.want != "" && (len(vs) != 1 || !strings.Contains(vs[0].String(), c.want)):
				t.Errorf("checkExpected = %v, want one containing %q", vs, c.want)
			}
		})
	}
}

func TestPlaceholderError(t *testing.T) {
	type tc struct {
		in, want string // want: substring of the error; "": none
	}
	for _, c := range []tc{
		{"no placeholder", ""},
		{`{{fromRequest:"name":"([^"]+)"}}`, ""},
		{"{{fromRequest:a{2}(b)}}}", ""},
		{"{{fromRequest:(x", `no closing "}}"`},
		{"{{fromRequest:x+}}", "the regex has no capture group"},
		{"{{fromRequest:(x}}", "missing closing )"},
	} {
		err := placeholderError(c.in)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("placeholderError(%q) = %v, want nil", c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("placeholderError(%q) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
}
