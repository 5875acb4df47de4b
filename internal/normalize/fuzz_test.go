package normalize

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// fuzzSeeds are hand-written lines plus every committed log and transcript
// of the corpus (snapshots/*/*.jsonl), when there is one.
func fuzzSeeds(f *testing.F) {
	f.Helper()
	for _, s := range []string{
		`{"type":"session","version":1,"id":"` + testUUID + `","createdAt":17,"cwd":"/private/tmp/wd","delegationDepth":0}` + "\n" +
			`{"type":"user/message","seq":0,"time":5,"data":{"id":"m","content":[{"type":"text","text":"/tmp/wd. /tmp/wd2 /tmp/wd.bak file:///tmp/wd/x 2026-11-30T10:19:05Z"}]}}`,
		`{"type":"assistant/chunk","seq":1,"time":6,"data":{"chunk":{"type":"tool-call-delta","id":"call_0_` + otherID + `","index":0}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"fs/read_text_file","params":{"path":"/tmp/wd/a","sessionId":"{{session:2}}"}}` + "\n" +
			`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":3}}`,
		`{"/tmp/wd/k":{"{{id:7}}":"` + otherID + `x"},"a":"\u00e9\ud800\u2028\/\u0000"}`,
		"[1,2.5e3,-0,true,null,\"/tmp/wd-\\u0041\"]\r\n\"x\xff\"",
		`{"a":"/tmp/wd.{{time}} /tmp/wd_` + testUUID + ` /tmp/wd{{cwd}}"}`,
		`{"/tmp/h/.cache":"HOME=/tmp/h:/tmp/h2 /tmp/h.bak file:///tmp/h/x /tmp/wd/.. /tmp/other /tmp. /private/tmp/h {{home}}/x {{root}}/y /tmp{{root}}"}`,
	} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("../../snapshots/*/*.jsonl")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(b)
		}
	}
}

// freshContext lays out the fuzzed run like the harness does: the cwd and
// the home inside the root "/tmp", so every raw path token begins with the
// root's spelling.
func freshContext() *Context {
	c := NewContext(testCwd, "/private/tmp/wd")
	c.AddPath("home", "/tmp/h")
	c.AddPath("root", "/tmp", "/private/tmp")
	return c
}

// survivingPath matches the root at a path boundary in encoded output, so
// any raw spelling of the cwd, the home or the root that a token should
// have replaced; it is written independently of pathBoundary.
var survivingPath = regexp.MustCompile(`/tmp(?:$|[^\pL\pN_{.-]|\.(?:$|[^\pL\pN{]))`)

// validLines reports whether every line (as strictjson.Each splits them) is JSON
// that keeps the rules of internal/strictjson (no repeated key, not too deep).
func validLines(in []byte) bool {
	ok := true
	_ = strictjson.Each(bytes.NewReader(in), func(_ int, line []byte) error {
		ok = ok && json.Valid(line) && strictjson.Check(line, "$") == nil
		return nil
	})
	return ok
}

func fuzzNormalize(f *testing.F, fn func([]byte, *Context) ([]byte, error)) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		once, err := fn(in, freshContext())
		if valid := validLines(in); (err == nil) != valid {
			t.Fatalf("err = %v, but every line valid JSON under the rules = %v", err, valid)
		}
		if err != nil {
			return
		}
		twice, err := fn(once, freshContext())
		if err != nil {
			t.Fatalf("normalized output does not parse: %v\n%s", err, once)
		}
		if !bytes.Equal(once, twice) {
			t.Fatalf("not idempotent:\nonce:  %s\ntwice: %s", once, twice)
		}
		if loc := survivingPath.FindIndex(once); loc != nil {
			t.Fatalf("raw path survives at %d: %s", loc[0], once)
		}
		if len(in) > 0 && !bytes.HasSuffix(once, []byte("\n")) {
			t.Fatalf("no trailing newline: %q", once)
		}
	})
}

func FuzzSession(f *testing.F) { fuzzNormalize(f, Session) }

func FuzzStdout(f *testing.F) { fuzzNormalize(f, Stdout) }

// FuzzCanonical checks the JSON reader and writer (no rules applied) against
// encoding/json: they accept the same texts, less those that break the JSON
// rules of internal/strictjson, and a text round-trips exactly like
// Unmarshal(UseNumber) + strictjson.Marshal.
func FuzzCanonical(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, in []byte) {
		var tr tree
		root, err := tr.parse(in)
		if valid := json.Valid(in) && strictjson.Check(in, "$") == nil; (err == nil) != valid {
			t.Fatalf("parse err = %v, valid under the rules = %v", err, valid)
		}
		if err != nil {
			return
		}
		var v any
		if err := Unmarshal(in, &v); err != nil {
			t.Fatal(err)
		}
		want, err := strictjson.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got := append(tr.encode(nil, root), '\n')
		if !bytes.Equal(want, got) {
			t.Fatalf("encoding differs:\nwant %s\ngot  %s", want, got)
		}
	})
}

func TestSurvivingPathPattern(t *testing.T) {
	for in, want := range map[string]bool{
		`"/tmp/wd"`: true, `/tmp/wd.`: true, `/tmp/wd2`: true, `/tmp/h`: true, `/private/tmp`: true,
		`/tmp.`: true, `/tmp. `: true, `/tmp/`: true, `"/tmp"`: true, `/tmp\n`: true,
		`/tmp2`: false, `/tmp.bak`: false, `/tmp-x`: false, `/tmp_x`: false, `/tmpé`: false,
		`/tmp{{root}}`: false, `{{root}}/wd2`: false, `{{cwd}}`: false,
	} {
		if got := survivingPath.MatchString(in); got != want {
			t.Errorf("survivingPath(%q) = %v, want %v", in, got, want)
		}
	}
	if strings.Contains(testCwd, "{") {
		t.Fatal("test cwd must not contain a brace")
	}
}
