package normalize

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// This file holds the rules for text: the cwd and its spellings, UUIDs
// and ISO-8601 timestamps anywhere inside a string. Every rule is a byte
// scan that returns its input unchanged (no allocation) when nothing
// matches.

var (
	cwdToken  = []byte("{{cwd}}")
	timeToken = []byte("{{time}}")
)

// text applies the text rules to s.
func (c *Context) text(s []byte) []byte {
	if len(s) == 0 {
		return s
	}
	s = c.scrubCwd(s)
	c.observe(s)
	return c.scrubIDs(s)
}

// scrubCwd replaces every spelling of the cwd that ends at a path boundary
// by {{cwd}}. At one position the longest spelling wins; scanning goes left
// to right and resumes after each replacement.
func (c *Context) scrubCwd(s []byte) []byte {
	if len(c.needles) == 0 || bytes.IndexByte(s, '/') < 0 {
		return s
	}
	var small [8]int
	next := small[:0]
	for _, nd := range c.needles {
		next = append(next, nextCwd(s, nd, 0))
	}
	var out []byte
	done := 0 // s[:done] is already in out
	for {
		k := -1
		for i, at := range next {
			if at >= 0 && (k < 0 || at < next[k]) {
				k = i
			}
		}
		if k < 0 {
			break
		}
		out = append(out, s[done:next[k]]...)
		out = append(out, cwdToken...)
		done = next[k] + len(c.needles[k])
		for i, at := range next {
			if at >= 0 && at < done {
				next[i] = nextCwd(s, c.needles[i], done)
			}
		}
	}
	if out == nil {
		return s
	}
	return append(out, s[done:]...)
}

// nextCwd returns the first index ≥ from where nd occurs followed by a path
// boundary, or -1.
func nextCwd(s, nd []byte, from int) int {
	for from <= len(s)-len(nd) {
		j := bytes.Index(s[from:], nd)
		if j < 0 {
			return -1
		}
		if at := from + j; pathBoundary(s, at+len(nd)) {
			return at
		}
		from += j + 1
	}
	return -1
}

// pathBoundary reports whether a path ending at s[:i] cannot go on: s ends
// there, or s[i] cannot continue a file name. Letters, digits, '_', '-',
// '{' and a '.' followed by a letter, digit or '{' continue a name (so
// "cwd2", "cwd-x", "cwd.bak" are other paths, and "cwd." ends a sentence).
// '{' counts because a token may stand where a name went on: treating it as
// continuation keeps normalization idempotent.
func pathBoundary(s []byte, i int) bool {
	if i >= len(s) {
		return true
	}
	if s[i] == '.' {
		return i+1 >= len(s) || !nameByte(s[i+1:])
	}
	return !nameByte(s[i:]) && s[i] != '-' && s[i] != '_'
}

// nameByte reports whether the rune at the start of s is a letter, a digit
// or '{'.
func nameByte(s []byte) bool {
	b := s[0]
	if b < utf8.RuneSelf {
		return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '{'
	}
	r, _ := utf8.DecodeRune(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// scrubIDs replaces UUIDs by their {{id:N}} (or the typed token the same raw
// value already has) and ISO-8601 timestamps by {{time}}. Both contain '-',
// so the scan visits only dashes.
func (c *Context) scrubIDs(s []byte) []byte {
	var out []byte
	done := 0
	for i := bytes.IndexByte(s, '-'); i >= 0 && i < len(s); {
		var end int
		var tok []byte
		if st := i - 8; st >= done && uuidAt(s, st) {
			end, tok = st+36, c.assign(kindID, s[st:st+36])
			out = append(append(out, s[done:st]...), tok...)
		} else if st := i - 4; st >= done {
			if end = timeAt(s, st); end > 0 {
				out = append(append(out, s[done:st]...), timeToken...)
			}
		}
		if end > 0 {
			done = end
			i = end
		} else {
			i++
		}
		j := bytes.IndexByte(s[i:], '-')
		if j < 0 {
			break
		}
		i += j
	}
	if out == nil {
		return s
	}
	return append(out, s[done:]...)
}

func isAlnum(b byte) bool {
	return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9'
}

func isHex(b byte) bool {
	return b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' || b >= '0' && b <= '9'
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

// wordAt reports whether s[st:end] is not glued to letters or digits.
func wordAt(s []byte, st, end int) bool {
	return (st == 0 || !isAlnum(s[st-1])) && (end == len(s) || !isAlnum(s[end]))
}

// uuidAt reports whether a UUID (8-4-4-4-12 hex digits, any case) stands
// alone at s[st:].
func uuidAt(s []byte, st int) bool {
	if st < 0 || st+36 > len(s) {
		return false
	}
	for i, b := range s[st : st+36] {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if b != '-' {
				return false
			}
		} else if !isHex(b) {
			return false
		}
	}
	return wordAt(s, st, st+36)
}

// timeAt returns the end of an ISO-8601 timestamp standing alone at s[st:]
// (YYYY-MM-DDTHH:MM:SS, optional fraction, optional Z or ±HH[:MM]), or 0.
func timeAt(s []byte, st int) int {
	if st < 0 {
		return 0
	}
	i := st
	for _, want := range "dddd-dd-ddTdd:dd:dd" {
		if i >= len(s) || !(want == 'd' && isDigit(s[i]) || want != 'd' && s[i] == byte(want)) {
			return 0
		}
		i++
	}
	if i+1 < len(s) && (s[i] == '.' || s[i] == ',') && isDigit(s[i+1]) {
		for i++; i < len(s) && isDigit(s[i]); i++ {
		}
	}
	i = timeOffset(s, i)
	if !wordAt(s, st, i) {
		return 0
	}
	return i
}

// timeOffset returns the end of a zone designator at s[i:] (i if none).
func timeOffset(s []byte, i int) int {
	if i >= len(s) {
		return i
	}
	if s[i] == 'Z' {
		return i + 1
	}
	if (s[i] != '+' && s[i] != '-') || i+3 > len(s) || !isDigit(s[i+1]) || !isDigit(s[i+2]) {
		return i
	}
	j := i + 3
	if j < len(s) && s[j] == ':' {
		j++
	}
	if j+2 <= len(s) && isDigit(s[j]) && isDigit(s[j+1]) {
		return j + 2
	}
	return i + 3
}
