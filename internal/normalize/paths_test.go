package normalize

import (
	"regexp"
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
		{name: "cwd relative to /", in: "tmp/r/workspace/hello.txt", want: "{{cwdRel}}/hello.txt"},
		{name: "home relative to / in a sentence", in: "wrote tmp/r/home/.cache, done", want: "wrote {{homeRel}}/.cache, done"},
		{name: "root relative to / in parentheses", in: "(tmp/r)", want: "({{rootRel}})"},
		{name: "private cwd relative to /", in: "private/tmp/r/workspace/x", want: "{{cwdRel}}/x"},
		{name: "relative after a name is another path", in: "mytmp/r/home a.tmp/r x-tmp/r x_tmp/r étmp/r", want: "mytmp/r/home a.tmp/r x-tmp/r x_tmp/r étmp/r"},
		{name: "relative with a longer last name is another path", in: "tmp/r2/x tmp/r/home2", want: "tmp/r2/x {{rootRel}}/home2"},
		{name: "relative after an absolute other path is absolute", in: "/var/tmp/r/home", want: "/var{{home}}"},
		{name: "folders relative to each other are the same every run", in: "../home ../workspace/x ..", want: "../home ../workspace/x .."},
		{name: "relative tokens stay", in: "{{cwdRel}}/x {{rootRel}}", want: "{{cwdRel}}/x {{rootRel}}"},
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
		{"one component relative to / is a word, not a path", func(c *Context) { c.AddPath("home", "/root") }, "root/x /root/x", "root/x {{home}}/x"},
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

func TestExpander(t *testing.T) {
	type testCase struct {
		name, cwd, home, root, in, want string
	}
	for _, tc := range []testCase{
		{"every token", "/tmp/s/workspace", "/tmp/s/home", "/tmp/s", "{{cwd}}/a {{home}} {{root}}/x {{cwdRel}}/a {{homeRel}} {{rootRel}}",
			"/tmp/s/workspace/a /tmp/s/home /tmp/s/x tmp/s/workspace/a tmp/s/home tmp/s"},
		{"an unknown folder keeps its tokens", "/w", "", "", "{{cwd}} {{home}} {{rootRel}}", "/w {{home}} {{rootRel}}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, Expander(tc.cwd, tc.home, tc.root).Replace(tc.in)); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

// pathRun is the layout FuzzPathBoundary scrubs: a root whose name is the
// prefix of another name (acpsnap-x, acpsnap-xy), the cwd and home inside.
func pathRun() *Paths {
	c := NewContext("/tmp/acpsnap-x/workspace")
	c.AddPath("home", "/tmp/acpsnap-x/home")
	c.AddPath("root", "/tmp/acpsnap-x")
	return NewPaths(c)
}

// continuesName reports whether s, the text right after a path, makes it a
// longer name: written independently of pathBoundary.
var continuesName = regexp.MustCompile(`^(?:[\pL\p{Nd}_-]|\.[\pL\p{Nd}])`)

// endsName reports whether s, the text right before a relative path, makes
// it part of a longer path or name.
var endsName = regexp.MustCompile(`[\pL\p{Nd}_./}-]$`)

var pathToken = regexp.MustCompile(`\{\{(cwd|home|root)(Rel)?\}\}`)

// FuzzPathBoundary: the path rules respect path boundaries in every
// spelling: a token never stands where the path went on as a longer name
// (/tmp/acpsnap-x never eats /tmp/acpsnap-xy), a relative one never where a
// longer path began; scrubbing is idempotent, and expanding gives the text
// back.
func FuzzPathBoundary(f *testing.F) {
	for _, s := range []string{
		"/tmp/acpsnap-xy/workspace", "/tmp/acpsnap-x", "/tmp/acpsnap-x.bak /tmp/acpsnap-x. done",
		"tmp/acpsnap-x/workspace/hello.txt", "mytmp/acpsnap-x", "(tmp/acpsnap-x/home)", "/tmp/acpsnap-x/homework",
		"/tmp/acpsnap-x_1 /tmp/acpsnap-x-2 /tmp/acpsnap-xé tmp/acpsnap-x/workspace2", "a/tmp/acpsnap-x/home/tmp/acpsnap-x",
	} {
		f.Add(s)
	}
	p := pathRun()
	f.Fuzz(func(t *testing.T, in string) {
		if strings.Contains(in, "{{") {
			return // a text that holds tokens already is not the round trip's
		}
		out := p.Scrub(in)
		for _, loc := range pathToken.FindAllStringSubmatchIndex(out, -1) {
			if after := out[loc[1]:]; !strings.HasPrefix(after, "{{") && continuesName.MatchString(after) {
				t.Fatalf("a token where a longer name goes on, at %d: %q → %q", loc[1], in, out)
			}
			if loc[4] >= 0 && endsName.MatchString(out[:loc[0]]) {
				t.Fatalf("a relative token inside a longer path, at %d: %q → %q", loc[0], in, out)
			}
		}
		if again := p.Scrub(out); again != out {
			t.Fatalf("not idempotent: %q → %q → %q", in, out, again)
		}
		if back := p.Expand(out); back != in {
			t.Fatalf("the round trip lost the text: %q → %q → %q", in, out, back)
		}
	})
}
