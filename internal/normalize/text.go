package normalize

import "bytes"

// This file holds the rules for text: the path tokens (paths.go), UUIDs
// and ISO-8601 timestamps anywhere inside a string. Every rule is a byte
// scan that returns its input unchanged (no allocation) when nothing
// matches.

var timeToken = []byte("{{time}}")

// text applies the text rules to s.
func (c *Context) text(s []byte) []byte {
	if len(s) == 0 {
		return s
	}
	s = c.scrubNonce(c.scrubPaths(s))
	c.observe(s)
	return c.scrubIDs(s)
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
