package proxy

import (
	"encoding/json"
	"testing"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// slowCanonical is the definition strictjson.AppendCanonical must equal: decode, drop
// the ignored parts, encode with sorted keys.
func slowCanonical(b []byte, ptrs [][]string) []byte {
	v := decodeBody(b)
	for _, p := range ptrs {
		v = drop(v, p)
	}
	out, _ := strictjson.Encode(v)
	return out
}

func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{
		benchBody(),
		`{"b":1,"a":[true,null,-1.5e3,"x\u00e9\n"],"\u00e9":{}}`,
		` { "z" : [ 1 , { "y" : "<&>" } ] , "a\\"b" : "\u2028" } `,
		`{"prompt_cache_key":"k","input":[{"a":1},{"b":2}],"keep":"\ud83d\ude00"}`,
		`"just a string"`, `[]`, `{}`, `123`,
	} {
		f.Add(s, "/prompt_cache_key", "/input/0")
	}
	f.Fuzz(func(t *testing.T, doc, ptr1, ptr2 string) {
		b := []byte(doc)
		if !json.Valid(b) {
			return
		}
		ig, err := parseIgnore([]string{ptr1, ptr2})
		if err != nil {
			ig, _ = parseIgnore(nil)
		}
		if len(ig.pointers) == 2 && (len(ig.pointers[0]) > 1 || len(ig.pointers[1]) > 1) {
			ig.pointers = ig.pointers[:1] // sequential array drops shift indices; one pointer is exact
		}
		if strictjson.Check(b, "$") != nil {
			return // the proxy refuses the body before
		}
		got := strictjson.AppendCanonical(nil, b, ig.pointers)
		if want := slowCanonical(b, ig.pointers); string(got) != string(want) {
			t.Errorf("AppendCanonical(%.300q, %q)\n got %.300s\nwant %.300s", doc, ig.pointers, got, want)
		}
	})
}
