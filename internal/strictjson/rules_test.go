package strictjson

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// nested is a value n arrays deep around a duplicate-free object.
func nested(n int) []byte {
	return []byte(strings.Repeat("[", n) + `{"a":1}` + strings.Repeat("]", n))
}

func TestCheck(t *testing.T) {
	type checkCase struct {
		name, doc string
		want      *Error // nil: accepted
	}
	for _, c := range []checkCase{
		{"clean", `{"a":[{"b":1},{"b":2}],"c":"x"}`, nil},
		{"duplicate top", "{\"a\":1,\n \"a\":2}", &Error{Off: 9, Path: "$.a", Msg: DuplicateKey}},
		{"duplicate deep", `{"a":[{},{"b":{"c":1,"c":2}}]}`, &Error{Off: 21, Path: "$.a[1].b.c", Msg: DuplicateKey}},
		{"duplicate through an escape", `{"a":1,"\u0061":2}`, &Error{Off: 7, Path: "$.a", Msg: DuplicateKey}},
		{"duplicate among many keys", `{"k0":0,"k1":0,"k2":0,"k3":0,"k4":0,"k5":0,"k6":0,"k7":0,"k8":0,"k9":0,"ka":0,"kb":0,"kc":0,"kd":0,"ke":0,"kf":0,"kg":0,"k3":1}`,
			&Error{Off: 120, Path: "$.k3", Msg: DuplicateKey}},
		{"same key in sibling objects", `[{"a":1},{"a":1}]`, nil},
		{"a key named like a path", `{"a.b":{"c":1,"c":1}}`, &Error{Off: 14, Path: "$.a.b.c", Msg: DuplicateKey}},
		{"at the cap", string(nested(MaxDepth - 1)), nil},
		{"one past the cap", string(nested(MaxDepth)), &Error{Off: MaxDepth, Path: "$[0][0][0][0][0][0][0][0]…", Msg: TooDeep}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if !json.Valid([]byte(c.doc)) {
				t.Fatalf("test document is not JSON")
			}
			got := Check([]byte(c.doc), "$")
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckBuildsPathsLazily: checking a deep document allocates a few
// times, not once per level (a path string per level took verify to 4.4
// GB on a document nested 9,990 deep).
func TestCheckBuildsPathsLazily(t *testing.T) {
	doc := nested(MaxDepth - 1)
	allocs := testing.AllocsPerRun(5, func() {
		if err := Check(doc, "$"); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 20 {
		t.Errorf("Check of a document %d deep: %v allocations, want at most 20", MaxDepth, allocs)
	}
}

func TestFind(t *testing.T) {
	doc := []byte("{\"a\": [1, {\"b\": \"x\"}],\n \"a.b\": {\"c\": true}, \"e\\u0073c\": null}")
	type findCase struct {
		path string
		want string // what data holds from the offset on, cut to its length
	}
	for _, c := range []findCase{
		{"$", "{"},
		{"$.a", `"a"`},
		{"$.a[0]", "1"},
		{"$.a[1]", "{"},
		{"$.a[1].b", `"b"`},
		{"$.a[1].missing", "{"},
		{"$.a[7]", `"a"`},
		{"$.a.b", `"a.b"`},
		{"$.a.b.c", `"c"`},
		{"$.esc", `"e\u0073c"`},
		{"$.nothing.below", "{"},
	} {
		t.Run(c.path, func(t *testing.T) {
			off := Find(doc, "$", c.path)
			if got := string(doc[off:min(off+len(c.want), len(doc))]); got != c.want {
				t.Errorf("Find(%q) = %d, at %q, want %q", c.path, off, got, c.want)
			}
		})
	}
	if off := Find(doc, "$.data", "$.other"); off != 0 {
		t.Errorf("Find outside the root = %d, want 0", off)
	}
}

// TestIndexReadsOnce: finding every step of a long script steps through
// each container once, not once per step.
func TestIndexReadsOnce(t *testing.T) {
	const steps = 2000
	doc := []byte(`{"steps":[` + strings.Repeat(`{"op":"initialize"},`, steps-1) + `{"op":"initialize"}]}`)
	x := NewIndex(doc, "$")
	for i := range steps {
		if off := x.Find("$.steps[" + strconv.Itoa(i) + "].op"); doc[off] != '"' {
			t.Fatalf("step %d: offset %d is not its key", i, off)
		}
	}
	if x.read > 4*len(doc) {
		t.Errorf("finding %d steps read %d bytes of a %d-byte document, want at most %d", steps, x.read, len(doc), 4*len(doc))
	}
}

// stringSeeds seed FuzzQuote.
var stringSeeds = []string{"", "plain", "é\u2028\u2029<&>", "\x00\x1f\t\n\"\\/", "\xff\xfe", "\U0001F600"}

// FuzzQuote: AppendQuote writes what encoding/json writes with HTML
// escaping off, Unquote reads back what it wrote, and Quoted holds exactly
// for what AppendQuote leaves without an escape.
func FuzzQuote(f *testing.F) {
	for _, s := range stringSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		got := AppendQuote(nil, []byte(s))
		if string(got)+"\n" != want.String() {
			t.Fatalf("AppendQuote(%q) = %s, want %s", s, got, want.Bytes())
		}
		var back string
		json.Unmarshal(got, &back)
		if u := Unquote(got); u != back {
			t.Fatalf("Unquote(%s) = %q, want %q", got, u, back)
		}
		if q := Quoted(got); q != !bytes.Contains(got, []byte(`\`)) {
			t.Fatalf("Quoted(%s) = %v", got, q)
		}
	})
}

// FuzzUnquote: Unquote decodes any valid JSON string as encoding/json does
// (escapes, surrogate pairs, lone surrogates, invalid UTF-8).
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"a\u00e9\n\"\\\/"`, `"\ud83d\ude00"`, `"\ud800x"`, `"\udc00\ud800"`, "\"\xff\"", `"\u2028"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var want string
		if len(raw) < 2 || raw[0] != '"' || json.Unmarshal([]byte(raw), &want) != nil || StringEnd([]byte(raw), 0) != len(raw) {
			return
		}
		if got := Unquote([]byte(raw)); got != want {
			t.Fatalf("Unquote(%s) = %q, want %q", raw, got, want)
		}
	})
}

// FuzzCheck: on any valid document Check agrees with a reference built
// on encoding/json's tokens about whether a key repeats, and names a key
// inside the document when one does.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":2}`, `[{"a":{"b":[1,{"c":1,"c":1}]}}]`, `{"\u0061":1,"a":1}`, "[[[[]]]]", `"x"`, `{"k":{"k":{"k":{}}}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		b := []byte(doc)
		if !json.Valid(b) || bytes.Count(b, []byte("["))+bytes.Count(b, []byte("{")) >= MaxDepth {
			return
		}
		err := Check(b, "$")
		if dup := repeats(json.NewDecoder(bytes.NewReader(b))); dup != (err != nil) {
			t.Fatalf("Check(%q) = %v, reference finds a repeated key: %v", doc, err, dup)
		}
		if err != nil && (err.Msg != DuplicateKey || b[err.Off] != '"' || !strings.HasPrefix(err.Path, "$") || !strings.HasSuffix(err.Path, Unquote(b[err.Off:StringEnd(b, err.Off)]))) {
			t.Fatalf("Check(%q) = %+v: not a key of the document", doc, err)
		}
	})
}

// repeats reports whether the value dec is at repeats a key in an object.
func repeats(dec *json.Decoder) bool {
	tok, _ := dec.Token()
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			k, _ := dec.Token()
			if seen[k.(string)] || repeats(dec) {
				return true
			}
			seen[k.(string)] = true
		}
	case json.Delim('['):
		for dec.More() {
			if repeats(dec) {
				return true
			}
		}
	default:
		return false
	}
	dec.Token()
	return false
}

// FuzzCanonical: AppendCanonical writes what encoding/json writes for a
// decoded copy (numbers as json.Number, objects as maps, HTML escaping
// off), for every document that keeps the rules.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[true,null,-1.5e3,"x\u00e9\n"],"\u00e9":{}}`, ` { "z" : [ 1 , { "y" : "<&>" } ] , "a\"b" : "\u2028" } `,
		`{"k":"\ud83d\ude00\ud800","\u0000":0}`, `"just a string"`, `[]`, `{}`, `123`, "{\"\xff\":\"\xfe\"}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		b := []byte(doc)
		if !json.Valid(b) || Check(b, "$") != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if got := AppendCanonical(nil, b, nil); string(got)+"\n" != want.String() {
			t.Fatalf("AppendCanonical(%.300q)\n got %.300s\nwant %.300s", doc, got, want.Bytes())
		}
	})
}

// TestCheckAllocatesOnce: Check of a document of a log line's shape
// allocates once, whatever its keys and depth (it runs on every line of
// every log read).
func TestCheckAllocatesOnce(t *testing.T) {
	line := []byte(`{"type":"assistant/chunk","seq":3,"time":0,"data":{"chunk":{"type":"text-delta","text":"hi"},"calls":[{"id":"c1"}]}}`)
	if allocs := testing.AllocsPerRun(10, func() { Check(line, "$") }); allocs > 1 {
		t.Errorf("Check: %v allocations, want 1", allocs)
	}
}
