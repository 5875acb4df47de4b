package cassette

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/internal/jsonpos"
	"github.com/acpsnap/acpsnap/internal/jsonscan"
)

// Canonical returns the canonical form of the JSON value raw: object keys
// sorted by their bytes, no insignificant whitespace, numbers exactly as
// written, strings as encoding/json writes them with HTML escaping off.
// Duplicate keys at any depth are refused (through internal/jsonpos), so two
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
	if _, _, err := jsonpos.Parse(raw, "$", 0, "$"); err != nil {
		return nil, stripName(err)
	}
	return jsonscan.AppendCanonical(nil, raw, nil), nil
}

// stripName drops jsonpos's "name:line: " prefix: the caller names the place.
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
	switch c := s.data[s.i]; {
	case c == '{':
		return s.object(depth + 1)
	case c == '[':
		return s.array(depth + 1)
	case c == '"':
		_, err := s.str()
		return err
	case c == '-' || (c >= '0' && c <= '9'):
		return s.number()
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == ' ' || c == '\t' || c == '\r' || c == '\n':
		return s.fail("whitespace outside strings (not canonical)")
	}
	return s.fail("invalid JSON")
}

func (s *scanner) literal(lit string) error {
	if !bytes.HasPrefix(s.data[s.i:], []byte(lit)) {
		return s.fail("invalid JSON literal")
	}
	s.i += len(lit)
	return nil
}

// object is a state machine over members; keys must ascend strictly.
func (s *scanner) object(depth int) error {
	if depth > jsonscan.MaxDepth {
		return s.fail(jsonscan.TooDeep)
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
			s.top = append(s.top, member{key: jsonscan.Unquote(key), off: off, end: s.i, keyOff: keyOff})
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
	if depth > jsonscan.MaxDepth {
		return s.fail(jsonscan.TooDeep)
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
// with HTML escaping off: only the escapes it uses, and no byte it escapes.
func (s *scanner) str() ([]byte, error) {
	start := s.i
	s.i++ // "
	for s.i < len(s.data) {
		for s.i < len(s.data) && jsonscan.Plain[s.data[s.i]] {
			s.i++ // the common case: printable ASCII other than '"' and '\\'
		}
		if s.i >= len(s.data) {
			break
		}
		c := s.data[s.i]
		switch {
		case c == '"':
			s.i++
			return s.data[start:s.i], nil
		case c == '\\':
			if err := s.escape(); err != nil {
				return nil, err
			}
		case c < 0x20:
			return nil, s.fail("control character in a string")
		case c < utf8.RuneSelf:
			s.i++
		default:
			r, n := utf8.DecodeRune(s.data[s.i:])
			if r == utf8.RuneError && n == 1 {
				return nil, s.fail("invalid UTF-8 in a string")
			}
			if r == '\u2028' || r == '\u2029' {
				return nil, s.fail("unescaped U+2028 or U+2029 (not canonical)")
			}
			s.i += n
		}
	}
	s.i = start
	return nil, s.fail("unterminated string")
}

// escape checks one escape sequence at s.i against encoding/json's choice:
// \" \\ \b \f \n \r \t, \u00xx (lowercase) for the other control
// characters, \u2028 and \u2029.
func (s *scanner) escape() error {
	if s.i+1 >= len(s.data) {
		return s.fail("unterminated string escape")
	}
	switch s.data[s.i+1] {
	case '"', '\\', 'b', 'f', 'n', 'r', 't':
		s.i += 2
		return nil
	case 'u':
		if s.i+6 > len(s.data) {
			return s.fail("unterminated string escape")
		}
		u := string(s.data[s.i+2 : s.i+6])
		if u == "2028" || u == "2029" || canonicalControl(u) {
			s.i += 6
			return nil
		}
		if _, err := strconv.ParseUint(u, 16, 16); err != nil {
			return s.fail("invalid string escape")
		}
		return s.fail("string escape not in canonical form")
	}
	return s.fail("string escape not in canonical form")
}

// canonicalControl reports whether \u+u is how encoding/json writes a
// control character (one without a short escape).
func canonicalControl(u string) bool {
	const hex = "0123456789abcdef"
	if u[0] != '0' || u[1] != '0' || (u[2] != '0' && u[2] != '1') || strings.IndexByte(hex, u[3]) < 0 {
		return false
	}
	switch c := (u[2]-'0')<<4 | byte(strings.IndexByte(hex, u[3])); c {
	case '\b', '\f', '\n', '\r', '\t':
		return false
	}
	return true
}

// number checks the JSON number grammar; numbers are kept as written.
func (s *scanner) number() error {
	start := s.i
	if s.data[s.i] == '-' {
		s.i++
	}
	if s.digits() == 0 {
		return s.fail("invalid number")
	}
	if s.data[start] == '0' && s.i-start > 1 || s.data[start] == '-' && s.i-start > 2 && s.data[start+1] == '0' {
		s.i = start
		return s.fail("number with a leading zero")
	}
	if s.i < len(s.data) && s.data[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return s.fail("invalid number fraction")
		}
	}
	if s.i < len(s.data) && (s.data[s.i] == 'e' || s.data[s.i] == 'E') {
		s.i++
		if s.i < len(s.data) && (s.data[s.i] == '+' || s.data[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return s.fail("invalid number exponent")
		}
	}
	return nil
}

func (s *scanner) digits() int {
	n := 0
	for s.i < len(s.data) && s.data[s.i] >= '0' && s.data[s.i] <= '9' {
		s.i++
		n++
	}
	return n
}

// compareKeys orders two raw keys by their decoded bytes (the order
// encoding/json sorts map keys in).
func compareKeys(a, b []byte) int {
	if bytes.IndexByte(a, '\\') < 0 && bytes.IndexByte(b, '\\') < 0 {
		return bytes.Compare(a[1:len(a)-1], b[1:len(b)-1])
	}
	return strings.Compare(jsonscan.Unquote(a), jsonscan.Unquote(b))
}
