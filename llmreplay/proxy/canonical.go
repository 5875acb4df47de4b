package proxy

import (
	"bytes"
	"slices"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/internal/jsonscan"
)

// canonicalJSON appends to dst the canonical form of the valid JSON
// document b, which keeps the JSON rules of internal/jsonscan (the proxy
// refuses a body that does not, with normalize's errors): compact, object
// members sorted by key, strings in their plain encoding, numbers
// verbatim, members and elements at the ignore pointers left out. It
// equals encoding a decoded copy of b with sorted keys (the property test
// checks this) without building that copy: this is the replay hot path.
func canonicalJSON(dst, b []byte, ptrs [][]string) []byte {
	w := canonWriter{out: dst}
	w.value(b, 0, ptrs)
	return w.out
}

type canonWriter struct {
	out []byte
}

// span is one member written to out.
type span struct {
	key        string
	start, end int
}

func (w *canonWriter) value(b []byte, i int, ptrs [][]string) int {
	i = jsonscan.Space(b, i)
	switch b[i] {
	case '{':
		return w.object(b, i, ptrs)
	case '[':
		return w.array(b, i, ptrs)
	}
	e := jsonscan.ValueEnd(b, i)
	if b[i] == '"' {
		w.str(b[i:e])
	} else {
		w.out = append(w.out, b[i:e]...)
	}
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
	i = jsonscan.Space(b, i+1)
	for b[i] != '}' {
		ke := jsonscan.StringEnd(b, i)
		key := jsonscan.Unquote(b[i:ke])
		vs := jsonscan.Space(b, jsonscan.Space(b, ke)+1) // past the colon
		var ve int
		if sub, skip := descend(ptrs, key); skip {
			ve = jsonscan.ValueEnd(b, vs)
		} else {
			if len(ms) > 0 {
				w.out = append(w.out, ',')
			}
			st := len(w.out)
			w.str(b[i:ke])
			w.out = append(w.out, ':')
			ve = w.value(b, vs, sub)
			if n := len(ms); n > 0 && ms[n-1].key >= key {
				sorted = false
			}
			ms = append(ms, span{key, st, len(w.out)})
		}
		if i = jsonscan.Space(b, ve); b[i] == ',' {
			i = jsonscan.Space(b, i+1)
		}
	}
	if !sorted {
		written := bytes.Clone(w.out[base:])
		slices.SortStableFunc(ms, func(x, y span) int { return strings.Compare(x.key, y.key) })
		w.out = w.out[:base]
		for j, m := range ms {
			if j > 0 {
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
	i = jsonscan.Space(b, i+1)
	first := true
	for n := 0; b[i] != ']'; n++ {
		var e int
		if sub, skip := descend(ptrs, strconv.Itoa(n)); skip {
			e = jsonscan.ValueEnd(b, i)
		} else {
			if !first {
				w.out = append(w.out, ',')
			}
			first = false
			e = w.value(b, i, sub)
		}
		if i = jsonscan.Space(b, e); b[i] == ',' {
			i = jsonscan.Space(b, i+1)
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

// str writes a raw JSON string in the canonical encoding.
func (w *canonWriter) str(raw []byte) {
	if jsonscan.Quoted(raw) {
		w.out = append(w.out, raw...)
		return
	}
	w.out = jsonscan.AppendQuote(w.out, jsonscan.AppendUnquote(nil, raw))
}
