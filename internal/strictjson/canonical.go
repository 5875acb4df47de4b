package strictjson

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
)

// AppendCanonical appends to dst the canonical form of the valid JSON
// document b, which keeps the rules Check applies: compact, object members
// sorted by key bytewise, strings as AppendQuote writes them, numbers
// verbatim; what encoding/json writes for a decoded copy of b (numbers as
// json.Number, objects as maps), without building that copy (FuzzCanonical
// checks it). The members and elements at the ignore pointers (JSON
// pointers split into their tokens: "/input/0" is {"input", "0"}) are left
// out. It is the hot path of the model proxy's replay.
func AppendCanonical(dst, b []byte, ignore [][]string) []byte {
	w := canonWriter{out: dst}
	w.value(b, 0, ignore)
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
	i = Space(b, i)
	switch b[i] {
	case '{':
		return w.object(b, i, ptrs)
	case '[':
		return w.array(b, i, ptrs)
	}
	e := ValueEnd(b, i)
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
	i = Space(b, i+1)
	for b[i] != '}' {
		ke := StringEnd(b, i)
		key := Unquote(b[i:ke])
		vs := Space(b, Space(b, ke)+1) // past the colon
		var ve int
		if sub, skip := descend(ptrs, key); skip {
			ve = ValueEnd(b, vs)
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
		if i = Space(b, ve); b[i] == ',' {
			i = Space(b, i+1)
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
	i = Space(b, i+1)
	first := true
	for n := 0; b[i] != ']'; n++ {
		var e int
		if sub, skip := descend(ptrs, strconv.Itoa(n)); skip {
			e = ValueEnd(b, i)
		} else {
			if !first {
				w.out = append(w.out, ',')
			}
			first = false
			e = w.value(b, i, sub)
		}
		if i = Space(b, e); b[i] == ',' {
			i = Space(b, i+1)
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
	if Quoted(raw) {
		w.out = append(w.out, raw...)
		return
	}
	w.out = AppendQuote(w.out, AppendUnquote(nil, raw))
}
