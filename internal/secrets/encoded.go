package secrets

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"unicode/utf8"
)

// disguises are the forms of a secret value that Find looks for besides
// the value itself: reversed, hex (both cases) and base64 (standard and
// URL alphabets), base64 as it shows inside a longer encoded text too: a
// value that starts one or two bytes into a 3-byte group is encoded
// differently, so each alignment is a form of its own, its complete
// groups only. A form shorter than MinLen is left out. (Percent and
// \u escapes are undone in the text instead: see views.)
func disguises(value string) [][]byte {
	v := []byte(value)
	out := [][]byte{v, reversed(v), []byte(hex.EncodeToString(v)), bytes.ToUpper([]byte(hex.EncodeToString(v)))}
	for _, skip := range []int{0, 2, 1} { // the value at offset 0, 1, 2 of a group
		if skip >= len(v) {
			continue
		}
		whole := v[skip:]
		whole = whole[:len(whole)/3*3]
		for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
			out = append(out, []byte(enc.EncodeToString(whole)))
		}
	}
	kept := out[:0]
	for _, d := range out {
		if len(d) >= MinLen && !slices.ContainsFunc(kept, func(k []byte) bool { return bytes.Equal(k, d) }) {
			kept = append(kept, d)
		}
	}
	return kept
}

func reversed(b []byte) []byte {
	r := slices.Clone(b)
	slices.Reverse(r)
	return r
}

// maxUndo bounds how many times views undoes escapes of escapes
// ("%2573" is "%73" is "s").
const maxUndo = 3

// views are b and, when it holds percent escapes ("%73") or \u escapes
// ("\u0073", "\\u0073"), b with them undone, once, then again while that
// changes it (at most maxUndo times). An escape that stands for a line
// break or another control character becomes a NUL byte, so that a view
// has b's lines where b has them.
func views(b []byte) [][]byte {
	out := [][]byte{b}
	for range maxUndo {
		u, changed := undo(out[len(out)-1])
		if !changed {
			break
		}
		out = append(out, u)
	}
	return out
}

// undo undoes the percent and \u escapes of b.
func undo(b []byte) ([]byte, bool) {
	if !bytes.Contains(b, []byte{'%'}) && !bytes.Contains(b, []byte(`\u`)) {
		return b, false
	}
	out := make([]byte, 0, len(b))
	changed := false
	for i := 0; i < len(b); {
		if r, n := escape(b[i:]); n > 0 {
			if r < 0x20 {
				r = 0
			}
			out = utf8.AppendRune(out, r)
			i += n
			changed = true
			continue
		}
		out = append(out, b[i])
		i++
	}
	return out, changed
}

// escape reads "%XX", or "\uXXXX" after any number of backslashes, at the
// start of b: the rune and the bytes read; 0 bytes for none.
func escape(b []byte) (rune, int) {
	if len(b) >= 3 && b[0] == '%' && isHex(b[1]) && isHex(b[2]) {
		return rune(unhex(b[1])<<4 | unhex(b[2])), 3
	}
	i := 0
	for i < len(b) && b[i] == '\\' {
		i++
	}
	if i == 0 || len(b) < i+5 || b[i] != 'u' {
		return 0, 0
	}
	var r rune
	for _, c := range b[i+1 : i+5] {
		if !isHex(c) {
			return 0, 0
		}
		r = r<<4 | rune(unhex(c))
	}
	return r, i + 5
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
