package proxy

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/internal/jsonl"
)

// canonicalJSON appends to dst the canonical form of the valid JSON
// document b: compact, object members sorted by key, strings in their
// plain encoding, numbers verbatim, members and elements at the ignore
// pointers left out. It equals encoding a decoded copy of b with sorted
// keys (the property test checks this) without building that copy: this
// is the replay hot path. ok is false for a document with a duplicate key,
// which the caller handles the slow way.
func canonicalJSON(dst, b []byte, ptrs [][]string) (out []byte, ok bool) {
	w := canonWriter{out: dst}
	w.value(b, 0, ptrs)
	return w.out, !w.dup
}

type canonWriter struct {
	out []byte
	dup bool
}

// span is one member written to out.
type span struct {
	key        string
	start, end int
}

func (w *canonWriter) value(b []byte, i int, ptrs [][]string) int {
	i = skipWS(b, i)
	switch b[i] {
	case '{':
		return w.object(b, i, ptrs)
	case '[':
		return w.array(b, i, ptrs)
	case '"':
		e := endOfString(b, i)
		w.str(b[i:e])
		return e
	}
	e := endOfScalar(b, i)
	w.out = append(w.out, b[i:e]...)
	return e
}

// object writes each member (key, colon, canonical value) as it reads it,
// then, when the keys were out of order, rewrites the members sorted: one
// pass over b.
func (w *canonWriter) object(b []byte, i int, ptrs [][]string) int {
	w.out = append(w.out, '{')
	base := len(w.out)
	var ms []span // into w.out
	sorted := true
	i = skipWS(b, i+1)
	for b[i] != '}' {
		ke := endOfString(b, i)
		key := decodeString(b[i:ke])
		vs := skipWS(b, skipWS(b, ke)+1) // past the colon
		var ve int
		if sub, skip := descend(ptrs, key); skip {
			ve = endOfValue(b, vs)
		} else {
			if len(ms) > 0 {
				w.out = append(w.out, ',')
			}
			st := len(w.out)
			w.str(quoteKey(b[i:ke], key))
			w.out = append(w.out, ':')
			ve = w.value(b, vs, sub)
			if n := len(ms); n > 0 && ms[n-1].key >= key {
				sorted = false
			}
			ms = append(ms, span{key, st, len(w.out)})
		}
		if i = skipWS(b, ve); b[i] == ',' {
			i = skipWS(b, i+1)
		}
	}
	if !sorted {
		written := bytes.Clone(w.out[base:])
		slices.SortStableFunc(ms, func(x, y span) int { return strings.Compare(x.key, y.key) })
		w.out = w.out[:base]
		for j, m := range ms {
			if j > 0 {
				w.dup = w.dup || ms[j-1].key == m.key
				w.out = append(w.out, ',')
			}
			w.out = append(w.out, written[m.start-base:m.end-base]...)
		}
	}
	w.out = append(w.out, '}')
	return i + 1
}

func (w *canonWriter) array(b []byte, i int, ptrs [][]string) int {
	w.out = append(w.out, '[')
	i = skipWS(b, i+1)
	first := true
	for n := 0; b[i] != ']'; n++ {
		var e int
		if sub, skip := descend(ptrs, strconv.Itoa(n)); skip {
			e = endOfValue(b, i)
		} else {
			if !first {
				w.out = append(w.out, ',')
			}
			first = false
			e = w.value(b, i, sub)
		}
		if i = skipWS(b, e); b[i] == ',' {
			i = skipWS(b, i+1)
		}
	}
	w.out = append(w.out, ']')
	return i + 1
}

// descend returns the pointers that continue below step, and whether one
// of them ends at it (the value is left out).
func descend(ptrs [][]string, step string) (sub [][]string, skip bool) {
	for _, p := range ptrs {
		if p[0] != step {
			continue
		}
		if len(p) == 1 {
			return nil, true
		}
		sub = append(sub, p[1:])
	}
	return sub, false
}

// str writes a raw JSON string in the encoding jsonl uses.
func (w *canonWriter) str(raw []byte) {
	if plainString(raw) {
		w.out = append(w.out, raw...)
		return
	}
	b, _ := jsonl.Value(decodeString(raw))
	w.out = append(w.out, b...)
}

// quoteKey returns the raw key when it is plain, else key re-encoded.
func quoteKey(raw []byte, key string) []byte {
	if plainString(raw) {
		return raw
	}
	b, _ := jsonl.Value(key)
	return b
}

// plainString reports whether raw (with its quotes) is already how
// encoding/json writes its content: no escapes, no control bytes, valid
// UTF-8 without U+2028/U+2029.
func plainString(raw []byte) bool {
	s := raw[1 : len(raw)-1]
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '\\' || c == '"' {
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

func decodeString(raw []byte) string {
	if bytes.IndexByte(raw, '\\') < 0 && utf8.Valid(raw) {
		return string(raw[1 : len(raw)-1])
	}
	var s string
	json.Unmarshal(raw, &s) // valid: the document was checked
	return s
}

// endOfScalar returns the index after the number or literal at b[i].
func endOfScalar(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
	}
	return i
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// endOfString returns the index after the string starting at b[i] == '"'.
func endOfString(b []byte, i int) int {
	j := i + 1
	for {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return len(b)
		}
		j += k
		bs := 0
		for bs < j-i-1 && b[j-1-bs] == '\\' {
			bs++
		}
		if bs%2 == 0 {
			return j + 1
		}
		j++
	}
}

// endOfValue returns the index after the value starting at b[i].
func endOfValue(b []byte, i int) int {
	depth := 0
	for j := i; j < len(b); j++ {
		switch b[j] {
		case '"':
			j = endOfString(b, j) - 1
			if depth == 0 {
				return j + 1
			}
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return j + 1
			}
			if depth < 0 {
				return j
			}
		case ',', ' ', '\t', '\r', '\n':
			if depth == 0 {
				return j
			}
		}
	}
	return len(b)
}
