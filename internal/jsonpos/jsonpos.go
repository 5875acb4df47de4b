// Package jsonpos is the project's one strict JSON decoder for files people
// write: fixtures, scripts, overrides, client scripts, cassettes. It reads a
// whole document, refuses duplicate object keys at every depth (encoding/json
// would silently keep the last) and keeps every value's byte offset and JSON
// path, so that each error reads "file:line: $.path: message".
package jsonpos

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
	"unicode/utf8"
)

// Doc is one JSON document being decoded strictly. It keeps the bytes so
// that every error can name the line of the value it is about.
type Doc struct {
	Name  string
	data  []byte
	line0 int    // the line of data's first byte, minus one (0 for a whole file)
	root  string // the path of data's value
	// pos is where each path starts, made on first use (At): a document
	// that decodes without error seldom needs it.
	posOnce sync.Once
	pos     map[string]int
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
// the data member of a log event).
func Parse(data []byte, name string, line0 int, root string) (*Doc, Value, error) {
	d := &Doc{Name: name, data: data, line0: line0, root: root}
	if len(data) == 0 || !json.Valid(data) || !dupFree(data) {
		// The slow walk names the problem and its place.
		d.pos = map[string]int{}
		if err := d.walk(root); err != nil {
			return nil, Value{}, err
		}
	}
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
	return d, Value{Raw: bytes.TrimSpace(data), Off: start, Path: root}, nil
}

// walk checks syntax and duplicate keys in one pass and records where each
// path starts (for object members: where the key starts).
func (d *Doc) walk(root string) error {
	if len(d.data) == 0 && root != "$" {
		return d.Errorf(0, root, "missing") // an absent member, not an empty file
	}
	if !json.Valid(d.data) {
		var serr *json.SyntaxError
		if err := json.Unmarshal(d.data, new(any)); errors.As(err, &serr) {
			return d.Errorf(int(serr.Offset), root, "invalid JSON: %v", err)
		}
		return d.Errorf(len(d.data), root, "invalid JSON: unexpected end of JSON input")
	}
	dec := json.NewDecoder(bytes.NewReader(d.data))
	dec.UseNumber()
	err := d.walkValue(dec, root)
	var dup *duplicateKey
	if errors.As(err, &dup) {
		return d.PathErrorf(dup.path, "duplicate key")
	}
	if err != nil {
		return d.Errorf(int(dec.InputOffset()), root, "invalid JSON: %v", err)
	}
	return nil
}

type duplicateKey struct{ path string }

func (e *duplicateKey) Error() string { return e.path + ": duplicate key" }

func (d *Doc) walkValue(dec *json.Decoder, path string) error {
	if _, ok := d.pos[path]; !ok {
		d.pos[path] = int(dec.InputOffset())
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		seen := map[string]bool{}
		for dec.More() {
			off := int(dec.InputOffset())
			key, err := dec.Token()
			if err != nil {
				return err
			}
			k, _ := key.(string)
			p := path + "." + k
			if seen[k] {
				d.pos[p] = off // the second one
				return &duplicateKey{path: p}
			}
			seen[k] = true
			d.pos[p] = off
			if err := d.walkValue(dec, p); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := d.walkValue(dec, fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	return err
}

// At is the byte offset of path, or of its nearest recorded ancestor (for
// an object member: of its key).
func (d *Doc) At(path string) int {
	d.posOnce.Do(func() {
		if d.pos == nil {
			d.pos = map[string]int{}
			d.walk(d.root) // cannot fail: Parse accepted the document
		}
	})
	for {
		if off, ok := d.pos[path]; ok {
			for off < len(d.data) && strings.IndexByte(" \t\r\n,:", d.data[off]) >= 0 {
				off++
			}
			return off
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			return 0
		}
		path = path[:i]
	}
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
	sc := scanner{b: v.Raw, i: 1}
	sc.ws()
	if sc.b[sc.i] == ']' {
		return out, nil
	}
	for {
		sc.ws()
		start := sc.i
		sc.skip()
		out = append(out, Value{Raw: bytes.Clone(v.Raw[start:sc.i]), Off: v.Off + start, Path: v.Path + "[" + strconv.Itoa(len(out)) + "]"})
		sc.ws()
		if sc.b[sc.i] == ']' {
			return out, nil
		}
		sc.i++ // ','
	}
}

// Members returns the members of the object v by key.
func (d *Doc) Members(v Value, what string) (map[string]Value, error) {
	if v.Raw[0] != '{' {
		return nil, d.Errorf(v.Off, v.Path, "want %s object, got %s", what, v.Kind())
	}
	out := map[string]Value{}
	sc := scanner{b: v.Raw, i: 1}
	sc.ws()
	if sc.b[sc.i] == '}' {
		return out, nil
	}
	for {
		sc.ws()
		k := sc.i
		sc.str()
		key := keyString(v.Raw[k:sc.i])
		sc.ws()
		sc.i++ // ':'
		sc.ws()
		start := sc.i
		sc.skip()
		m := Value{Raw: bytes.Clone(v.Raw[start:sc.i]), Off: v.Off + start, Path: v.Path + "." + key}
		if _, dup := out[key]; dup {
			return nil, d.Errorf(m.Off, m.Path, "duplicate key")
		}
		out[key] = m
		sc.ws()
		if sc.b[sc.i] == '}' {
			return out, nil
		}
		sc.i++ // ','
	}
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

// scanner steps through JSON that json.Valid accepted: it never meets a
// syntax error, so it checks nothing but where values end.
type scanner struct {
	b []byte
	i int
}

// ws skips white space.
func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\r', '\n':
			s.i++
		default:
			return
		}
	}
}

// str skips the string that starts at s.i.
func (s *scanner) str() {
	s.i++
	for {
		j := bytes.IndexAny(s.b[s.i:], `"\\`)
		s.i += j
		if s.b[s.i] == '"' {
			s.i++
			return
		}
		s.i += 2 // an escape: the byte after the backslash is never the end
	}
}

// skip skips the value that starts at s.i.
func (s *scanner) skip() {
	switch s.b[s.i] {
	case '"':
		s.str()
	case '{', '[':
		depth := 0
		for {
			switch s.b[s.i] {
			case '"':
				s.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return
			}
		}
	default: // a number, true, false or null
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', '}', ']', ' ', '\t', '\r', '\n':
				return
			}
			s.i++
		}
	}
}

// keyString decodes the object key raw (quotes included) the way
// encoding/json does: escapes resolved, invalid UTF-8 as U+FFFD.
func keyString(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && (isASCII(inner) || utf8.Valid(inner)) {
		return string(inner)
	}
	var k string
	json.Unmarshal(raw, &k) // valid JSON: cannot fail
	return k
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// dupFree reports whether no object in data, which json.Valid accepted,
// repeats a key. It is the fast path of Parse: the slow walk, which also
// records every path's place, runs only when it finds a duplicate (to
// name it) or when a caller asks where a path is.
func dupFree(data []byte) bool {
	s := dupScanner{scanner: scanner{b: data}}
	s.ws()
	return s.value()
}

// dupScanner is a scanner that looks at every object's keys.
type dupScanner struct {
	scanner
	keys [][]byte // the raw keys of the objects being scanned, outermost first
}

// value scans the value at s.i and reports whether it is free of duplicate keys.
func (s *dupScanner) value() bool {
	switch s.b[s.i] {
	case '{':
		return s.object()
	case '[':
		s.i++
		s.ws()
		if s.b[s.i] == ']' {
			s.i++
			return true
		}
		for {
			s.ws()
			if !s.value() {
				return false
			}
			s.ws()
			c := s.b[s.i]
			s.i++
			if c == ']' {
				return true
			}
		}
	}
	s.skip()
	return true
}

// manyKeys is the object size from which keys are checked with a map.
const manyKeys = 16

func (s *dupScanner) object() bool {
	s.i++
	s.ws()
	if s.b[s.i] == '}' {
		s.i++
		return true
	}
	base := len(s.keys)
	defer func() { s.keys = s.keys[:base] }()
	var seen map[string]bool // past manyKeys
	for {
		s.ws()
		k := s.i
		s.str()
		key := s.b[k+1 : s.i-1]
		if bytes.IndexByte(key, '\\') >= 0 || !isASCII(key) {
			key = []byte(keyString(s.b[k:s.i]))
		}
		switch {
		case seen != nil:
			if seen[string(key)] {
				return false
			}
			seen[string(key)] = true
		default:
			for _, other := range s.keys[base:] {
				if string(other) == string(key) {
					return false
				}
			}
			s.keys = append(s.keys, key)
			if len(s.keys)-base == manyKeys {
				seen = make(map[string]bool, 2*manyKeys)
				for _, other := range s.keys[base:] {
					seen[string(other)] = true
				}
			}
		}
		s.ws()
		s.i++ // ':'
		s.ws()
		if !s.value() {
			return false
		}
		s.ws()
		c := s.b[s.i]
		s.i++
		if c == '}' {
			return true
		}
	}
}
