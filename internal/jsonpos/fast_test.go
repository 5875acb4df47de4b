package jsonpos

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The fast path of Parse, Members and Elements must agree with the
// encoding/json based walk on every input: the same error, the same
// members and elements with the same offsets and paths, the same places.

// slowParse is Parse through the slow walk only.
func slowParse(data []byte, name string, line0 int, root string) (*Doc, error) {
	d := &Doc{Name: name, data: data, line0: line0, root: root, pos: map[string]int{}}
	if err := d.walk(root); err != nil {
		return nil, err
	}
	return d, nil
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

func sameAsSlow(t *testing.T, data []byte) {
	t.Helper()
	d, root, err := Parse(data, "f.json", 3, "$.data")
	slow, serr := slowParse(data, "f.json", 3, "$.data")
	if fmt.Sprint(err) != fmt.Sprint(serr) {
		t.Fatalf("%q: Parse error %v, slow walk %v", data, err, serr)
	}
	if err != nil {
		return
	}
	for path := range slow.pos {
		if got, want := d.At(path), slow.At(path); got != want {
			t.Fatalf("%q: At(%s) = %d, want %d", data, path, got, want)
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
	``, ` `, `{}`, `[]`, `[ ]`, `{ }`, ` {"a" : 1 , "b":[1, 2 ,{"c":null}] } `, `"x"`, `12.5e3`, `true`,
	`{"a":1,"a":2}`, `{"a":{"b":1,"c":{"b":2}},"b":3}`, `[{"a":1},{"a":1,"a":1}]`,
	`{"a\"b":1,"a\u0022b":2}`, `{"\u00e9":1,"é":2}`, "{\"\xff\":1,\"\xfe\":2}", "{\"\xff\":1}",
	`{"a":"\\"}`, `{"a":"\\\"","b":"]}"}`, `{"k":1} x`, `{"k":}`, `[1,]`, `{"x":[[[]]],"y":{"z":{}}}`,
	`{"1":0,"2":0,"3":0,"4":0,"5":0,"6":0,"7":0,"8":0,"9":0,"10":0,"11":0,"12":0,"13":0,"14":0,"15":0,"16":0,"17":0,"3":1}`,
	`{"1":0,"2":0,"3":0,"4":0,"5":0,"6":0,"7":0,"8":0,"9":0,"10":0,"11":0,"12":0,"13":0,"14":0,"15":0,"16":0,"17":0,"18":1}`,
	"{\"a\":1,\n  \"b\": [\n 1,\n 2],\n\"c\":{\"d\":\"e\"}}",
}

func TestFastPathAgreesWithSlowWalk(t *testing.T) {
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

func FuzzFastPath(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { sameAsSlow(t, data) })
}
