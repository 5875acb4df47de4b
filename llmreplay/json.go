package llmreplay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// doc is one JSON document being decoded strictly. It keeps the bytes so
// that every error can name the line of the value it is about.
type doc struct {
	name  string
	data  []byte
	line0 int // the line of data's first byte, minus one (0 for a whole file)
}

// value is one JSON value inside a doc: its exact bytes, its byte offset in
// the doc and its JSON path ("$[2].chunks[0]").
type value struct {
	raw  []byte
	off  int
	path string
}

// readDoc reads r whole and checks that it is one syntactically valid JSON
// value; the root value has path "$".
func readDoc(r io.Reader, name string) (*doc, value, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, value{}, fmt.Errorf("%s: %w", name, err)
	}
	d := &doc{name: name, data: data}
	if !json.Valid(data) {
		var serr *json.SyntaxError
		if err := json.Unmarshal(data, new(any)); errors.As(err, &serr) {
			return nil, value{}, d.errorf(int(serr.Offset), "$", "invalid JSON: %v", err)
		}
		return nil, value{}, d.errorf(0, "$", "invalid JSON")
	}
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
	return d, value{raw: bytes.TrimSpace(data), off: start, path: "$"}, nil
}

// line returns the 1-based line of byte offset off.
func (d *doc) line(off int) int {
	off = min(max(off, 0), len(d.data))
	return d.line0 + 1 + bytes.Count(d.data[:off], []byte("\n"))
}

// errorf returns "name:line: path: message" for the value at offset off.
func (d *doc) errorf(off int, path, format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s: %s", d.name, d.line(off), path, fmt.Sprintf(format, args...))
}

// kind names the JSON type of v for error messages.
func (v value) kind() string {
	switch v.raw[0] {
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

// elements returns the elements of the array v, each with its own offset
// and path.
func (d *doc) elements(v value, what string) ([]value, error) {
	if v.raw[0] != '[' {
		return nil, d.errorf(v.off, v.path, "want an array of %s, got %s", what, v.kind())
	}
	dec := json.NewDecoder(bytes.NewReader(v.raw))
	if _, err := dec.Token(); err != nil {
		return nil, d.errorf(v.off, v.path, "%v", err)
	}
	var out []value
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, d.errorf(v.off+int(dec.InputOffset()), v.path, "%v", err)
		}
		end := int(dec.InputOffset())
		out = append(out, value{raw: raw, off: v.off + end - len(raw), path: fmt.Sprintf("%s[%d]", v.path, len(out))})
	}
	return out, nil
}

// members returns the members of the object v by key. A duplicate key is
// an error: encoding/json would silently keep the last one.
func (d *doc) members(v value, what string) (map[string]value, error) {
	if v.raw[0] != '{' {
		return nil, d.errorf(v.off, v.path, "want %s object, got %s", what, v.kind())
	}
	dec := json.NewDecoder(bytes.NewReader(v.raw))
	if _, err := dec.Token(); err != nil {
		return nil, d.errorf(v.off, v.path, "%v", err)
	}
	out := map[string]value{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, d.errorf(v.off+int(dec.InputOffset()), v.path, "%v", err)
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, d.errorf(v.off+int(dec.InputOffset()), v.path, "%v", err)
		}
		end := int(dec.InputOffset())
		m := value{raw: raw, off: v.off + end - len(raw), path: v.path + "." + key}
		if _, dup := out[key]; dup {
			return nil, d.errorf(m.off, m.path, "duplicate key")
		}
		out[key] = m
	}
	return out, nil
}

// checkMembers reports a missing required key (at the object) or an
// unknown key (at that key's value), in a stable order.
func (d *doc) checkMembers(obj value, m map[string]value, required, optional []string) error {
	key, missing := keyProblem(m, required, optional)
	switch {
	case key == "":
		return nil
	case missing:
		return d.errorf(obj.off, obj.path+"."+key, "missing")
	}
	v := m[key]
	return d.errorf(v.off, v.path, "unknown key (allowed: %s)", strings.Join(append(required, optional...), ", "))
}

// keyProblem returns the first required key missing from present (missing
// true), else the first key in sorted order that is neither required nor
// optional, else "".
func keyProblem[V any](present map[string]V, required, optional []string) (key string, missing bool) {
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

// str decodes the string v.
func (d *doc) str(v value) (string, error) {
	var s string
	if v.raw[0] != '"' || json.Unmarshal(v.raw, &s) != nil {
		return "", d.errorf(v.off, v.path, "want a string, got %s", v.kind())
	}
	return s, nil
}

// boolean decodes the boolean v.
func (d *doc) boolean(v value) (bool, error) {
	var b bool
	if json.Unmarshal(v.raw, &b) != nil {
		return false, d.errorf(v.off, v.path, "want a boolean, got %s", v.kind())
	}
	return b, nil
}

// integer decodes the integer v.
func (d *doc) integer(v value) (int, error) {
	var i int
	if json.Unmarshal(v.raw, &i) != nil {
		return 0, d.errorf(v.off, v.path, "want an integer, got %s", strings.TrimSpace(string(v.raw)))
	}
	return i, nil
}

// chunk decodes v with Chunk.UnmarshalJSON and re-roots its relative path
// ("$.type") at v's path.
func (d *doc) chunk(v value) (Chunk, error) {
	var c Chunk
	if err := c.UnmarshalJSON(v.raw); err != nil {
		msg := err.Error()
		if rest, ok := strings.CutPrefix(msg, "$"); ok {
			return c, fmt.Errorf("%s:%d: %s%s", d.name, d.line(v.off), v.path, rest)
		}
		return c, d.errorf(v.off, v.path, "%s", msg)
	}
	return c, nil
}
