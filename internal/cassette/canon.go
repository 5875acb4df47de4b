package cassette

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// Canonical returns the canonical form of the JSON value raw: object keys
// sorted by their bytes, no insignificant whitespace, numbers exactly as
// written, strings as encoding/json writes them with HTML escaping off.
// Duplicate keys at any depth are refused (through internal/strictjson), so two
// documents with the same canonical form mean the same value. Input already
// canonical is returned as is (the result may share raw's memory).
func Canonical(raw []byte) ([]byte, error) {
	if _, err := scanCanonical(raw, nil); err == nil {
		return raw, nil
	}
	return canonicalSlow(raw)
}

// canonicalSlow is Canonical without the fast path: the reference the
// scanner must agree with (FuzzScannerAgrees).
func canonicalSlow(raw []byte) ([]byte, error) {
	if _, _, err := strictjson.Parse(raw, "$", 0, "$"); err != nil {
		return nil, stripName(err)
	}
	return strictjson.AppendCanonical(nil, raw, nil), nil
}

// stripName drops strictjson's "name:line: " prefix: the caller names the place.
func stripName(err error) error {
	msg := err.Error()
	if i := bytes.Index([]byte(msg), []byte(": $")); i >= 0 {
		return errors.New(msg[i+2:])
	}
	return err
}

// member is one member of the root object of a scanned line.
type member struct {
	key      string
	off, end int // the value's bytes are line[off:end]
	keyOff   int // where the key's opening quote is
}

// scanner checks that a line is exactly the canonical form of a JSON value
// (which implies: valid, no duplicate keys, keys in order) in one pass
// without allocating, and records the members of the root object. It is
// the hot path of verification; Canonical is the slow reference it agrees
// with (the fuzz target checks that).
type scanner struct {
	data []byte
	i    int
	top  []member
}

// scanError is a structural defect at a byte offset of the line; its text
// never quotes the line.
type scanError struct {
	off    int
	reason string
}

func (e *scanError) Error() string { return fmt.Sprintf("byte %d: %s", e.off+1, e.reason) }

func (s *scanner) fail(reason string) error { return &scanError{off: s.i, reason: reason} }

// scanCanonical checks line and returns the root object's members.
func scanCanonical(line []byte, top []member) ([]member, error) {
	s := scanner{data: line, top: top[:0]}
	if err := s.value(0); err != nil {
		return nil, err
	}
	if s.i != len(s.data) {
		return nil, s.fail("trailing bytes after the value")
	}
	return s.top, nil
}

func (s *scanner) value(depth int) error {
	if s.i >= len(s.data) {
		return s.fail("unexpected end of line")
	}
	var end int
	var err *strictjson.SyntaxError
	switch c := s.data[s.i]; {
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		_, err := s.str()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		end, err = strictjson.ScanNumber(s.data, s.i)
	case c == 't' || c == 'f' || c == 'n':
		end, err = strictjson.ScanLiteral(s.data, s.i)
	case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		return s.fail("whitespace outside strings (not canonical)")
	default:
		return s.fail("invalid JSON")
	}
	if err != nil {
		return s.syntax(err)
	}
	s.i = end
	return nil
}

// syntax is the scanError of a defect strictjson found.
func (s *scanner) syntax(err *strictjson.SyntaxError) error {
	return &scanError{off: err.Off, reason: err.Msg}
}

// object is a state machine over members; keys must ascend strictly.
func (s *scanner) object(depth int) error {
	if depth > strictjson.MaxDepth {
		return s.fail(strictjson.TooDeep)
	}
	s.i++ // {
	if s.i < len(s.data) && s.data[s.i] == '}' {
		s.i++
		return nil
	}
	var prev []byte
	for n := 0; ; n++ {
		keyOff := s.i
		if s.i >= len(s.data) || s.data[s.i] != '"' {
			return s.fail("want an object key")
		}
		key, err := s.str()
		if err != nil {
			return err
		}
		if n > 0 {
			switch c := compareKeys(prev, key); {
			case c == 0:
				s.i = keyOff
				return s.fail("duplicate key")
			case c > 0:
				s.i = keyOff
				return s.fail("object keys not in canonical (sorted) order")
			}
		}
		prev = key
		if s.i >= len(s.data) || s.data[s.i] != ':' {
			return s.fail("want ':' after an object key")
		}
		s.i++
		off := s.i
		if err := s.value(depth); err != nil {
			return err
		}
		if depth == 1 {
			s.top = append(s.top, member{key: strictjson.Unquote(key), off: off, end: s.i, keyOff: keyOff})
		}
		if s.i >= len(s.data) {
			return s.fail("unexpected end of line in an object")
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.fail("want ',' or '}' in an object")
		}
	}
}

func (s *scanner) array(depth int) error {
	if depth > strictjson.MaxDepth {
		return s.fail(strictjson.TooDeep)
	}
	s.i++ // [
	if s.i < len(s.data) && s.data[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		if err := s.value(depth); err != nil {
			return err
		}
		if s.i >= len(s.data) {
			return s.fail("unexpected end of line in an array")
		}
		switch s.data[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.fail("want ',' or ']' in an array")
		}
	}
}

// str scans a string and returns its raw bytes including the quotes. A
// string is canonical when it is what encoding/json writes for its value
// with HTML escaping off (strictjson.ScanString decides).
func (s *scanner) str() ([]byte, error) {
	str, err := strictjson.ScanString(s.data, s.i)
	if err != nil {
		return nil, s.syntax(err)
	}
	if str.Noncanonical != "" {
		return nil, &scanError{off: str.NoncanonicalOff, reason: str.Noncanonical}
	}
	raw := s.data[s.i:str.End]
	s.i = str.End
	return raw, nil
}

// compareKeys orders two raw keys by their decoded bytes (the order
// encoding/json sorts map keys in).
func compareKeys(a, b []byte) int {
	if bytes.IndexByte(a, '\\') < 0 && bytes.IndexByte(b, '\\') < 0 {
		return bytes.Compare(a[1:len(a)-1], b[1:len(b)-1])
	}
	return strings.Compare(strictjson.Unquote(a), strictjson.Unquote(b))
}
