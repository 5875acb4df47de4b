package normalize

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runContext is a live context laid out like the harness's private run
// root: the cwd and the home inside the root, the cwd and the root with
// their "/private" spellings, the home without.
func runContext() *Context {
	c := NewContext("/tmp/r/workspace", "/private/tmp/r/workspace")
	c.AddPath("home", "/tmp/r/home")
	c.AddPath("root", "/tmp/r", "/private/tmp/r")
	return c
}

func TestPathTokens(t *testing.T) {
	for _, tc := range []textCase{
		{name: "cwd inside root", in: "/tmp/r/workspace/x", want: "{{cwd}}/x"},
		{name: "home inside root", in: "/tmp/r/home/.cache", want: "{{home}}/.cache"},
		{name: "root elsewhere", in: "/tmp/r/other", want: "{{root}}/other"},
		{name: "root alone", in: "/tmp/r", want: "{{root}}"},
		{name: "sessions dir", in: "/tmp/r/sessions/s1/session.jsonl", want: "{{root}}/sessions/s1/session.jsonl"},
		{name: "parent of cwd", in: "/tmp/r/workspace/..", want: "{{cwd}}/.."},
		{name: "home2 is below root", in: "/tmp/r/home2/x", want: "{{root}}/home2/x"},
		{name: "home.bak is below root", in: "/tmp/r/home.bak", want: "{{root}}/home.bak"},
		{name: "home-x is below root", in: "/tmp/r/home-x", want: "{{root}}/home-x"},
		{name: "workspace2 is below root", in: "/tmp/r/workspace2", want: "{{root}}/workspace2"},
		{name: "root2 is another path", in: "/tmp/r2/home", want: "/tmp/r2/home"},
		{name: "root.bak is another path", in: "/tmp/r.bak/home", want: "/tmp/r.bak/home"},
		{name: "sentence-final dot", in: "HOME is /tmp/r/home.", want: "HOME is {{home}}."},
		{name: "environment", in: "HOME=/tmp/r/home:PWD=/tmp/r/workspace", want: "HOME={{home}}:PWD={{cwd}}"},
		{name: "file URL", in: "file:///tmp/r/home/a.txt", want: "file://{{home}}/a.txt"},
		{name: "private cwd", in: "/private/tmp/r/workspace/x", want: "{{cwd}}/x"},
		{name: "unregistered spelling of home falls back to root", in: "/private/tmp/r/home/x", want: "{{root}}/home/x"},
		{name: "adjacent", in: "/tmp/r/home/tmp/r", want: "{{home}}{{root}}"},
		{name: "every token in one text", in: "cd /tmp/r/workspace; ls /tmp/r/home /tmp/r", want: "cd {{cwd}}; ls {{home}} {{root}}"},
		{name: "tokens stay", in: "{{home}}/.cache {{root}}/.. {{cwd}}", want: "{{home}}/.cache {{root}}/.. {{cwd}}"},
		{name: "token after a name goes on", in: "/tmp/r{{home}}", want: "/tmp/r{{home}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, normWith(t, runContext, tc.in)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestPathTokensInKeysAndLogs(t *testing.T) {
	log := `{"type":"session","id":"s","cwd":"/tmp/r/workspace"}
{"type":"x","seq":0,"time":0,"data":{"/tmp/r/home/.config":1,"/tmp/r/workspace/a":2,"/tmp/r/x":3,"/tmp/r/home2":4,"env":{"HOME":"/tmp/r/home"}}}
`
	want := `{"cwd":"{{cwd}}","id":"{{session:1}}","type":"session"}
{"data":{"env":{"HOME":"{{home}}"},"{{cwd}}/a":2,"{{home}}/.config":1,"{{root}}/home2":4,"{{root}}/x":3},"seq":0,"time":0,"type":"x"}
`
	got, err := Session([]byte(log), runContext())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got)\n%s", diff)
	}
	again, err := Session(got, runContext())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(got), string(again)); diff != "" {
		t.Errorf("not idempotent (-once +twice)\n%s", diff)
	}
}

func TestPathPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(c *Context)
		in    string
		want  string
	}{
		{"home spelled like the cwd is the cwd", func(c *Context) { c.AddPath("home", testCwd) }, "/tmp/wd/x", "{{cwd}}/x"},
		{"root spelled like the home is the home", func(c *Context) {
			c.AddPath("root", "/tmp/h")
			c.AddPath("home", "/tmp/h")
		}, "/tmp/h", "{{home}}"},
		{"root / is ignored", func(c *Context) { c.AddPath("root", "/") }, "/x /tmp/wd", "/x {{cwd}}"},
		{"relative home is ignored", func(c *Context) { c.AddPath("home", "h") }, "h/x", "h/x"},
		{"a second call adds spellings", func(c *Context) {
			c.AddPath("home", "/tmp/h")
			c.AddPath("home", "/tmp/h2")
		}, "/tmp/h /tmp/h2", "{{home}} {{home}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := normWith(t, func() *Context {
				c := NewContext(testCwd)
				tc.setup(c)
				return c
			}, tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestAddPathPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		call func(c *Context)
		want string
	}{
		{"cwd is the Cwd field", func(c *Context) { c.AddPath("cwd", "/x") }, `normalize: AddPath: unknown path token "cwd" (want home or root)`},
		{"unknown name", func(c *Context) { c.AddPath("HOME", "/x") }, `normalize: AddPath: unknown path token "HOME" (want home or root)`},
		{"after first use", func(c *Context) {
			_, _ = Stdout([]byte("{}"), c)
			c.AddPath("home", "/x")
		}, "normalize: AddPath after the Context's first use"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if diff := cmp.Diff(tc.want, recover()); diff != "" {
					t.Errorf("panic (-want +got)\n%s", diff)
				}
			}()
			tc.call(NewContext(testCwd))
		})
	}
}

func TestScrubPathsDoesNotAllocate(t *testing.T) {
	c := runContext()
	c.prepare()
	for _, s := range []string{"no slash at all", "a/b/c /tmp/r2 /tmp/rx " + strings.Repeat("/x", 50)} {
		b := []byte(s)
		if n := testing.AllocsPerRun(100, func() { c.scrubPaths(b) }); n != 0 {
			t.Errorf("scrubPaths(%q) allocates %v times", s, n)
		}
	}
}
