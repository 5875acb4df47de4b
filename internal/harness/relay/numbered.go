package relay

import "bytes"

// numberedKinds are the kinds of the tokens that stand for one value
// ({{KIND:N}}, N from 1): every identity kind of package normalize.
var numberedKinds = [][]byte{[]byte("session"), []byte("toolCall"), []byte("message"), []byte("approval"), []byte("id")}

// numberedAt returns the end of the numbered token that starts at b[i]
// ("{{"), and where its number starts; 0, 0: none starts there.
func numberedAt(b []byte, i int) (end, num int) {
	rest := b[i+2:]
	for _, k := range numberedKinds {
		if len(rest) > len(k) && bytes.HasPrefix(rest, k) && rest[len(k)] == ':' {
			num = i + 2 + len(k) + 1
			break
		}
	}
	if num == 0 || num >= len(b) || b[num] < '1' || b[num] > '9' {
		return 0, 0
	}
	j := num + 1
	for j < len(b) && b[j] >= '0' && b[j] <= '9' {
		j++
	}
	if j+1 >= len(b) || b[j] != '}' || b[j+1] != '}' {
		return 0, 0
	}
	return j + 2, num
}

var open = []byte("{{")

// eachNumbered calls f with the start, number start and end of every
// numbered token in b, in order.
func eachNumbered(b []byte, f func(start, num, end int)) {
	for i := 0; ; {
		j := bytes.Index(b[i:], open)
		if j < 0 {
			return
		}
		s := i + j
		if end, num := numberedAt(b, s); end > 0 {
			f(s, num, end)
			i = end
		} else {
			i = s + 1
		}
	}
}

// numberedSpans are the start and end of every numbered token of b, in
// order, two ints each.
func numberedSpans(b []byte) []int {
	var spans []int
	eachNumbered(b, func(s, _, e int) { spans = append(spans, s, e) })
	return spans
}

// maskNumbers is b with its numbered tokens' numbers left out
// ("{{id:}}"): what groups the requests of a replay (proxy.Numbering).
func maskNumbers(b []byte) []byte {
	var out []byte
	done := 0
	eachNumbered(b, func(_, num, e int) {
		if out == nil {
			out = make([]byte, 0, len(b))
		}
		out = append(append(out, b[done:num]...), '}', '}')
		done = e
	})
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}

// replaceNumbered is b with each numbered token replaced by what with
// returns for it; b itself when nothing changes.
func replaceNumbered(b []byte, with func(tok []byte) []byte) []byte {
	var out []byte
	done := 0
	eachNumbered(b, func(s, _, e int) {
		r := with(b[s:e])
		if bytes.Equal(r, b[s:e]) {
			return
		}
		if out == nil {
			out = make([]byte, 0, len(b))
		}
		out = append(append(out, b[done:s]...), r...)
		done = e
	})
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}
