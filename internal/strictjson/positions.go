package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Doc is one JSON document being decoded strictly. It keeps the bytes so
// that every error can name the line of the value it is about.
type Doc struct {
	Name  string
	data  []byte
	line0 int    // the line of data's first byte, minus one (0 for a whole file)
	root  string // the path of data's value

	mu    sync.Mutex
	index *Index // made on first use (At): a document that decodes without error seldom needs it
}

// Value is one JSON value inside a Doc: its exact bytes, its byte offset in
// the Doc and its JSON path ("$[2].chunks[0]").
type Value struct {
	Raw  []byte
	Off  int
	Path string
}

// Read reads r whole and checks that it is exactly one syntactically valid
// JSON value without duplicate keys; the root value has path "$".
func Read(r io.Reader, name string) (*Doc, Value, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, Value{}, fmt.Errorf("%s: %w", name, err)
	}
	return Parse(data, name, 0, "$")
}

// Parse is Read for bytes already in memory. line0 is the line of data's
// first byte minus one (0 for a whole file; n-1 for line n of a JSONL
// file); root is the path of the value data holds ("$", or "$.data" for
// the data member of a log event). Syntax is encoding/json's; duplicate
// keys and nesting deeper than MaxDepth are refused.
func Parse(data []byte, name string, line0 int, root string) (*Doc, Value, error) {
	d := &Doc{Name: name, data: data, line0: line0, root: root}
	switch {
	case len(data) == 0 && root != "$":
		return nil, Value{}, d.Errorf(0, root, "missing") // an absent member, not an empty file
	case !json.Valid(data):
		var serr *json.SyntaxError
		if err := json.Unmarshal(data, new(any)); errors.As(err, &serr) {
			return nil, Value{}, d.Errorf(int(serr.Offset), root, "invalid JSON: %v", err)
		}
		return nil, Value{}, d.Errorf(len(data), root, "invalid JSON: unexpected end of JSON input")
	}
	if err := Check(data, root); err != nil {
		return nil, Value{}, d.Errorf(err.Off, err.Path, "%s", err.Msg)
	}
	start := Space(data, 0)
	return d, Value{Raw: bytes.TrimSpace(data), Off: start, Path: root}, nil
}

// At is the byte offset of path, or of its nearest ancestor in the
// document (for an object member: of its key). The containers it looks
// into are remembered (Index): asking for every step of a script
// costs about one pass over it.
func (d *Doc) At(path string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.index == nil {
		d.index = NewIndex(d.data, d.root)
	}
	return d.index.Find(path)
}

// Line returns the 1-based line of byte offset off.
func (d *Doc) Line(off int) int {
	off = min(max(off, 0), len(d.data))
	return d.line0 + 1 + bytes.Count(d.data[:off], []byte("\n"))
}

// Errorf returns "name:line: path: message" for the value at offset off.
func (d *Doc) Errorf(off int, path, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", d.Name, d.Line(off), path, fmt.Sprintf(format, args...))
}

// PathErrorf is Errorf for a path whose offset the Doc recorded.
func (d *Doc) PathErrorf(path, format string, args ...any) error {
	return d.Errorf(d.At(path), path, format, args...)
}

// Kind names the JSON type of v for error messages.
func (v Value) Kind() string {
	switch v.Raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// Elements returns the elements of the array v, each with its own offset
// and path.
func (d *Doc) Elements(v Value, what string) ([]Value, error) {
	if v.Raw[0] != '[' {
		return nil, d.Errorf(v.Off, v.Path, "want an array of %s, got %s", what, v.Kind())
	}
	var out []Value
	b := v.Raw
	for i := Space(b, 1); b[i] != ']'; {
		end := ValueEnd(b, i)
		out = append(out, Value{Raw: bytes.Clone(b[i:end]), Off: v.Off + i, Path: v.Path + "[" + strconv.Itoa(len(out)) + "]"})
		if i = Space(b, end); b[i] == ',' {
			i = Space(b, i+1)
		}
	}
	return out, nil
}

// Members returns the members of the object v by key.
func (d *Doc) Members(v Value, what string) (map[string]Value, error) {
	if v.Raw[0] != '{' {
		return nil, d.Errorf(v.Off, v.Path, "want %s object, got %s", what, v.Kind())
	}
	out := map[string]Value{}
	b := v.Raw
	for i := Space(b, 1); b[i] != '}'; {
		k := StringEnd(b, i)
		key := Unquote(b[i:k])
		start := Space(b, Space(b, k)+1) // past the colon
		end := ValueEnd(b, start)
		m := Value{Raw: bytes.Clone(b[start:end]), Off: v.Off + start, Path: v.Path + "." + key}
		if _, dup := out[key]; dup {
			return nil, d.Errorf(m.Off, m.Path, DuplicateKey)
		}
		out[key] = m
		if i = Space(b, end); b[i] == ',' {
			i = Space(b, i+1)
		}
	}
	return out, nil
}

// CheckMembers reports a missing required key (at the object) or an
// unknown key (at that key's value), in a stable order.
func (d *Doc) CheckMembers(obj Value, m map[string]Value, required, optional []string) error {
	key, missing := KeyProblem(m, required, optional)
	switch {
	case key == "":
		return nil
	case missing:
		return d.Errorf(obj.Off, obj.Path+"."+key, "missing")
	}
	v := m[key]
	return d.Errorf(v.Off, v.Path, "unknown key (allowed: %s)", strings.Join(append(required, optional...), ", "))
}

// KeyProblem returns the first required key missing from present (missing
// true), else the first key in sorted order that is neither required nor
// optional, else "".
func KeyProblem[V any](present map[string]V, required, optional []string) (key string, missing bool) {
	allowed := map[string]bool{}
	for _, k := range required {
		if _, ok := present[k]; !ok {
			return k, true
		}
		allowed[k] = true
	}
	for _, k := range optional {
		allowed[k] = true
	}
	var extra []string
	for k := range present {
		if !allowed[k] {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return "", false
	}
	sort.Strings(extra)
	return extra[0], false
}

// Str decodes the string v.
func (d *Doc) Str(v Value) (string, error) {
	var s string
	if v.Raw[0] != '"' || json.Unmarshal(v.Raw, &s) != nil {
		return "", d.Errorf(v.Off, v.Path, "want a string, got %s", v.Kind())
	}
	return s, nil
}

// Bool decodes the boolean v.
func (d *Doc) Bool(v Value) (bool, error) {
	var b bool
	if json.Unmarshal(v.Raw, &b) != nil {
		return false, d.Errorf(v.Off, v.Path, "want a boolean, got %s", v.Kind())
	}
	return b, nil
}

// Int decodes the integer v.
func (d *Doc) Int(v Value) (int, error) {
	var i int
	if json.Unmarshal(v.Raw, &i) != nil {
		return 0, d.Errorf(v.Off, v.Path, "want an integer, got %s", strings.TrimSpace(string(v.Raw)))
	}
	return i, nil
}

// Relative re-roots err, an error whose message starts with a path relative
// to v ("$.type: unknown chunk"), at v's place in d.
func (d *Doc) Relative(v Value, err error) error {
	msg := err.Error()
	if rest, ok := strings.CutPrefix(msg, "$"); ok {
		sub := v.Path + rest
		if i := strings.Index(rest, ":"); i >= 0 {
			return fmt.Errorf("%s:%d: %s", d.Name, d.Line(d.At(v.Path+rest[:i])), sub)
		}
		return fmt.Errorf("%s:%d: %s", d.Name, d.Line(v.Off), sub)
	}
	return d.Errorf(v.Off, v.Path, "%s", msg)
}
