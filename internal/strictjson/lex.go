package strictjson

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// This file steps through JSON that json.Valid accepted: it never meets a
// syntax error, so it checks nothing but where values end.

// Space returns the offset of the first byte at or after i that is not
// JSON white space.
func Space(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// StringEnd returns the offset after the string whose opening quote is
// b[i].
func StringEnd(b []byte, i int) int {
	i++
	for i < len(b) {
		j := bytes.IndexAny(b[i:], `"\`)
		if j < 0 {
			return len(b)
		}
		i += j
		if b[i] == '"' {
			return i + 1
		}
		i += 2 // an escape: the byte after the backslash never ends the string
	}
	return len(b)
}

// ValueEnd returns the offset after the value that starts at b[i].
func ValueEnd(b []byte, i int) int {
	switch b[i] {
	case '"':
		return StringEnd(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				i = StringEnd(b, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			i++
			if depth == 0 {
				return i
			}
		}
		return i
	}
	for i < len(b) { // a number, true, false or null
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}

// Find returns the offset of the value at path in data, whose value has
// the path root: for an object member the offset of its key, for a path
// data does not hold that of its nearest ancestor that it does, for a
// path outside root 0. A key that holds "." or "[" is matched as the
// longest key that fits. To find many paths of one document, use an Index.
func Find(data []byte, root, path string) int { return NewIndex(data, root).Find(path) }

// Index finds paths in one valid document like Find, and remembers the
// members and elements of every container it looked into: finding every
// step of a script costs one pass, not one per step. It keeps no path
// strings. Not safe for concurrent use.
type Index struct {
	data []byte
	root string
	kids map[int][]kid // by the offset of a container
	read int           // bytes stepped through, for the test that it reads a container once
}

// kid is a member (its decoded key and the offset of the key) or an
// element (the offset of its value) of a container.
type kid struct {
	key       string
	at, value int
}

// NewIndex returns an Index of data, whose value has the path root.
func NewIndex(data []byte, root string) *Index {
	return &Index{data: data, root: root, kids: map[int][]kid{}}
}

// Find is the package's Find, over the containers looked into before.
func (x *Index) Find(path string) int {
	rest, ok := strings.CutPrefix(path, x.root)
	if !ok {
		return 0
	}
	b := x.data
	i := Space(b, 0)
	at := i
	for rest != "" && i < len(b) {
		var k *kid
		switch {
		case b[i] == '{' && rest[0] == '.':
			k, rest = x.member(i, rest)
		case b[i] == '[' && rest[0] == '[':
			k, rest = x.element(i, rest)
		}
		if k == nil {
			return at
		}
		at, i = k.at, k.value
	}
	return at
}

// member finds the member of the object at offset i that rest (".key…")
// names, the longest key that fits, and what rest names below it.
func (x *Index) member(i int, rest string) (*kid, string) {
	var found *kid
	below := rest
	for j, k := range x.children(i) {
		if n := 1 + len(k.key); n <= len(rest) && rest[1:n] == k.key {
			if r := rest[n:]; (r == "" || r[0] == '.' || r[0] == '[') && len(r) < len(below) {
				found, below = &x.kids[i][j], r
			}
		}
	}
	return found, below
}

// element finds the element of the array at offset i that rest ("[n]…")
// names, like member.
func (x *Index) element(i int, rest string) (*kid, string) {
	end := strings.IndexByte(rest, ']')
	if end < 0 {
		return nil, rest
	}
	n, err := strconv.Atoi(rest[1:end])
	ks := x.children(i)
	if err != nil || n < 0 || n >= len(ks) {
		return nil, rest
	}
	return &ks[n], rest[end+1:]
}

// children lists the members or elements of the container at offset i.
func (x *Index) children(i int) []kid {
	if ks, ok := x.kids[i]; ok {
		return ks
	}
	var ks []kid
	b, object := x.data, x.data[i] == '{'
	for j := Space(b, i+1); b[j] != '}' && b[j] != ']'; {
		k := kid{at: j, value: j}
		if object {
			end := StringEnd(b, j)
			k.key = Unquote(b[j:end])
			k.value = Space(b, Space(b, end)+1) // past the colon
		}
		ks = append(ks, k)
		if j = Space(b, ValueEnd(b, k.value)); b[j] == ',' {
			j = Space(b, j+1)
		}
	}
	x.kids[i] = ks
	x.read += len(b[i:Space(b, ValueEnd(b, i))])
	return ks
}

// Plain marks the bytes that a string holds as they are and encoding/json
// writes as they are: printable ASCII other than '"' and '\'.
var Plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isPlain(s []byte) bool {
	for _, c := range s {
		if !Plain[c] {
			return false
		}
	}
	return true
}

// Unquote decodes the string raw (quotes included) as encoding/json does:
// escapes resolved, invalid UTF-8 and lone surrogates as U+FFFD.
func Unquote(raw []byte) string {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner)
	}
	return string(AppendUnquote(nil, raw))
}

// AppendUnquote appends the decoded string raw (quotes included) to dst,
// like Unquote.
func AppendUnquote(dst, raw []byte) []byte {
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); {
		j := i
		for j < len(s) && Plain[s[j]] {
			j++
		}
		dst = append(dst, s[i:j]...)
		if i = j; i >= len(s) {
			break
		}
		switch c := s[i]; {
		case c == '\\':
			var n int
			dst, n = AppendEscape(dst, s[i:])
			i += n
		default:
			var n int
			dst, n = AppendRune(dst, s[i:])
			i += n
		}
	}
	return dst
}

// AppendRune appends the character s starts with to dst, U+FFFD for a
// byte that starts no valid UTF-8, as encoding/json decodes it, and
// returns how many bytes it took.
func AppendRune(dst, s []byte) ([]byte, int) {
	if s[0] < utf8.RuneSelf {
		return append(dst, s[0]), 1
	}
	r, n := utf8.DecodeRune(s)
	if r == utf8.RuneError && n == 1 {
		return utf8.AppendRune(dst, utf8.RuneError), 1
	}
	return append(dst, s[:n]...), n
}

var simpleEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// AppendEscape decodes the valid escape at the start of s (a backslash)
// onto dst as encoding/json does (a lone surrogate as U+FFFD) and returns
// how many bytes it took.
func AppendEscape(dst, s []byte) ([]byte, int) {
	if s[1] != 'u' {
		return append(dst, simpleEscapes[s[1]]), 2
	}
	r, _ := Hex4(s, 2)
	if utf16.IsSurrogate(r) {
		if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
			if r2, ok := Hex4(s, 8); ok {
				if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
					return utf8.AppendRune(dst, dec), 12
				}
			}
		}
		r = utf8.RuneError
	}
	return utf8.AppendRune(dst, r), 6
}

// SimpleEscape is the byte the escape `\c` stands for, 0 when c starts no
// one-letter escape.
func SimpleEscape(c byte) byte { return simpleEscapes[c] }

// Hex4 decodes the four hex digits of a \u escape at b[at:].
func Hex4(b []byte, at int) (rune, bool) {
	if at+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[at : at+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

const hexDigits = "0123456789abcdef"

// AppendQuote appends s as a JSON string the way encoding/json writes it
// with HTML escaping off: \" \\ \b \f \n \r \t, \u00xx for the other
// control characters, \u2028 and \u2029, invalid UTF-8 as \ufffd.
func AppendQuote(dst, s []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		for i < len(s) && Plain[s[i]] {
			i++
		}
		if i >= len(s) {
			break
		}
		b := s[i]
		if b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRune(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		} else if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		} else {
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// Quoted reports whether raw (quotes included) is exactly what
// AppendQuote writes for what it holds, without an escape: the string
// can be copied as it is into a canonical form.
func Quoted(raw []byte) bool {
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !Plain[c] {
				return false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && n == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += n
	}
	return true
}
