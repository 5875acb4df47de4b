package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Parse, At, Members and Elements must agree with a reference built on
// encoding/json's tokens on every input: the same error, the same members
// and elements with the same offsets and paths, the same places.

// ref is the reference: every path of a document and where it starts (for
// object members: where the key starts), from encoding/json's tokens.
type ref struct {
	d   *Doc
	pos map[string]int
	odd map[string]bool // paths at or below a key that holds "." or "["
}

// refParse is Parse through encoding/json's tokens.
func refParse(data []byte, name string, line0 int, root string) (*ref, error) {
	r := &ref{d: &Doc{Name: name, data: data, line0: line0, root: root}, pos: map[string]int{}, odd: map[string]bool{}}
	d := r.d
	if len(data) == 0 && root != "$" {
		return nil, d.Errorf(0, root, "missing")
	}
	if !json.Valid(data) {
		var serr *json.SyntaxError
		if err := json.Unmarshal(data, new(any)); errors.As(err, &serr) {
			return nil, d.Errorf(int(serr.Offset), root, "invalid JSON: %v", err)
		}
		return nil, d.Errorf(len(data), root, "invalid JSON: unexpected end of JSON input")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if path, msg := r.walk(dec, root, 0); msg != "" {
		return nil, d.Errorf(r.at(path), path, "%s", msg)
	}
	return r, nil
}

// walk records the places of the value dec is at and below, and returns
// the path of a repeated key or a value nested too deep.
func (r *ref) walk(dec *json.Decoder, path string, depth int) (string, string) {
	if _, ok := r.pos[path]; !ok {
		r.pos[path] = int(dec.InputOffset())
	}
	tok, _ := dec.Token()
	if (tok == json.Delim('{') || tok == json.Delim('[')) && depth == MaxDepth {
		return path, TooDeep
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			off := int(dec.InputOffset())
			key, _ := dec.Token()
			k, _ := key.(string)
			p := path + "." + k
			r.pos[p] = off
			r.odd[p] = r.odd[p] || r.odd[path] || strings.ContainsAny(k, ".[")
			if seen[k] {
				return p, DuplicateKey
			}
			seen[k] = true
			if p, msg := r.walk(dec, p, depth+1); msg != "" {
				return p, msg
			}
		}
		dec.Token()
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			p := fmt.Sprintf("%s[%d]", path, i)
			r.odd[p] = r.odd[p] || r.odd[path]
			if p, msg := r.walk(dec, p, depth+1); msg != "" {
				return p, msg
			}
		}
		dec.Token()
	}
	return "", ""
}

// at is the recorded offset of path past the separators before it.
func (r *ref) at(path string) int {
	off := r.pos[path]
	for off < len(r.d.data) && strings.IndexByte(" \t\r\n,:", r.d.data[off]) >= 0 {
		off++
	}
	return off
}

// refMembers is Members decoded with encoding/json.
func refMembers(d *Doc, v Value) (map[string]Value, error) {
	dec := json.NewDecoder(bytes.NewReader(v.Raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	out := map[string]Value{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		m := Value{Raw: raw, Off: v.Off + end - len(raw), Path: v.Path + "." + key}
		if _, dup := out[key]; dup {
			return nil, d.Errorf(m.Off, m.Path, "duplicate key")
		}
		out[key] = m
	}
	return out, nil
}

// refElements is Elements decoded with encoding/json.
func refElements(v Value) ([]Value, error) {
	dec := json.NewDecoder(bytes.NewReader(v.Raw))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []Value
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		out = append(out, Value{Raw: raw, Off: v.Off + end - len(raw), Path: fmt.Sprintf("%s[%d]", v.Path, len(out))})
	}
	return out, nil
}

// sameError compares an error of Parse with the reference's, whose path of
// a value nested too deep is whole where Parse's stops at "…".
func sameError(got, want string) bool {
	if shown, ok := strings.CutSuffix(got, "…: "+TooDeep); ok {
		return strings.HasPrefix(want, shown) && strings.HasSuffix(want, ": "+TooDeep)
	}
	return got == want
}

func sameAsSlow(t *testing.T, data []byte) {
	t.Helper()
	d, root, err := Parse(data, "f.json", 3, "$.data")
	slow, serr := refParse(data, "f.json", 3, "$.data")
	if !sameError(fmt.Sprint(err), fmt.Sprint(serr)) {
		t.Fatalf("%.200q: Parse error %.300v, reference %.300v", data, err, serr)
	}
	if err != nil {
		return
	}
	for path := range slow.pos {
		if slow.odd[path] {
			continue // below a key holding "." or "[": At takes the longest key that fits
		}
		if got, want := d.At(path), slow.at(path); got != want {
			t.Fatalf("%.200q: At(%.100s) = %d, want %d", data, path, got, want)
		}
	}
	var walk func(v Value)
	walk = func(v Value) {
		switch v.Raw[0] {
		case '{':
			got, err := d.Members(v, "x")
			want, werr := refMembers(d, v)
			if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: Members(%s) = %v, %v; want %v, %v", data, v.Path, got, err, want, werr)
			}
			for _, m := range got {
				walk(m)
			}
		case '[':
			got, err := d.Elements(v, "x")
			want, werr := refElements(v)
			if err != nil || werr != nil || !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: Elements(%s) = %v, %v; want %v, %v", data, v.Path, got, err, want, werr)
			}
			for _, e := range got {
				walk(e)
			}
		}
	}
	walk(root)
}

var fastSeeds = []string{
	strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
	strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1),
	`{"a.b":1,"a":{"b":2}}`, `{"a":{"b[0]":1}}`,
	``, ` `, `{}`, `[]`, `[ ]`, `{ }`, ` {"a" : 1 , "b":[1, 2 ,{"c":null}] } `, `"x"`, `12.5e3`, `true`,
	`{"a":1,"a":2}`, `{"a":{"b":1,"c":{"b":2}},"b":3}`, `[{"a":1},{"a":1,"a":1}]`,
	`{"a\"b":1,"a\u0022b":2}`, `{"\u00e9":1,"é":2}`, "{\"\xff\":1,\"\xfe\":2}", "{\"\xff\":1}",
	`{"a":"\\"}`, `{"a":"\\\"","b":"]}"}`, `{"k":1} x`, `{"k":}`, `[1,]`, `{"x":[[[]]],"y":{"z":{}}}`,
	`{"1":0,"2":0,"3":0,"4":0,"5":0,"6":0,"7":0,"8":0,"9":0,"10":0,"11":0,"12":0,"13":0,"14":0,"15":0,"16":0,"17":0,"3":1}`,
	`{"1":0,"2":0,"3":0,"4":0,"5":0,"6":0,"7":0,"8":0,"9":0,"10":0,"11":0,"12":0,"13":0,"14":0,"15":0,"16":0,"17":0,"18":1}`,
	"{\"a\":1,\n  \"b\": [\n 1,\n 2],\n\"c\":{\"d\":\"e\"}}",
}

func TestAgreesWithReference(t *testing.T) {
	for _, s := range fastSeeds {
		sameAsSlow(t, []byte(s))
	}
	// Every JSON line and file of the corpus.
	files, _ := filepath.Glob("../../snapshots/*/*.json*")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(f, ".jsonl") {
			for _, line := range bytes.Split(b, []byte("\n")) {
				sameAsSlow(t, line)
			}
			continue
		}
		sameAsSlow(t, b)
	}
}

func FuzzAgreesWithReference(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameAsSlow(t, data) })
}
