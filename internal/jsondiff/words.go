package jsondiff

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// minElide is the fewest bytes worth replacing with an elision note.
const minElide = 24

// tokenize splits s into words (runs of letters, digits and '_'), runs of
// white space, and single other characters, so that a word diff marks whole
// words and keeps punctuation apart. Invalid bytes are single tokens.
func tokenize(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		class := runeClass(r)
		j := i + size
		for class != 0 && j < len(s) {
			r2, size2 := utf8.DecodeRuneInString(s[j:])
			if runeClass(r2) != class {
				break
			}
			j += size2
		}
		out = append(out, s[i:j])
		i = j
	}
	return out
}

// runeClass is 1 for word runes, 2 for spaces, 0 for anything else (never
// joined with its neighbours).
func runeClass(r rune) int {
	switch {
	case r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
		return 1
	case r == ' ' || r == '\t' || r == '\n' || r == '\r':
		return 2
	}
	return 0
}

// segment is a run of the word diff: equal tokens, or a change (tokens
// deleted from want, tokens inserted in got; either may be empty).
type segment struct {
	equal    []string
	del, ins []string
}

func segments(ta, tb []string) []segment {
	var out []segment
	for _, e := range diffSeq(len(ta), len(tb), func(i, j int) bool { return ta[i] == tb[j] }) {
		isEqual := e.kind == ' '
		if len(out) == 0 || (out[len(out)-1].equal != nil) != isEqual {
			out = append(out, segment{})
		}
		s := &out[len(out)-1]
		switch e.kind {
		case ' ':
			s.equal = append(s.equal, ta[e.ai])
		case '-':
			s.del = append(s.del, ta[e.ai])
		case '+':
			s.ins = append(s.ins, tb[e.bi])
		}
	}
	return out
}

// wordDiff renders the two sides of a changed text: want with its deleted
// words marked, got with its inserted words marked, and the unchanged runs
// between changes cut down to ctx words either side with a
// "…N bytes unchanged…" note. quote makes each piece visible. It returns the
// two rendered sides and the number of want bytes that changed.
func (r *renderer) wordDiff(a, b string, quote func(string) string) (want, got string, changed int) {
	segs := segments(tokenize(a), tokenize(b))
	var ws, gs strings.Builder
	for i, s := range segs {
		if s.equal == nil {
			d, n := strings.Join(s.del, ""), strings.Join(s.ins, "")
			changed += len(d)
			if d != "" {
				ws.WriteString(r.mark('-', r.clip(d, quote)))
			}
			if n != "" {
				gs.WriteString(r.mark('+', r.clip(n, quote)))
			}
			continue
		}
		text := r.unchanged(s.equal, i > 0, i < len(segs)-1, quote)
		ws.WriteString(text)
		gs.WriteString(text)
	}
	return ws.String(), gs.String(), changed
}

// unchanged renders an equal run, keeping ctx words next to a change on
// either side (before, after) and eliding the rest.
func (r *renderer) unchanged(run []string, before, after bool, quote func(string) string) string {
	head, tail := 0, 0
	if before {
		head = wordsFrom(run, r.cfg.Context, false)
	}
	if after {
		tail = wordsFrom(run, r.cfg.Context, true)
	}
	if head+tail < len(run) {
		mid := len(strings.Join(run[head:len(run)-tail], ""))
		if mid >= minElide {
			return quote(strings.Join(run[:head], "")) +
				r.elision(mid, "unchanged") +
				quote(strings.Join(run[len(run)-tail:], ""))
		}
	}
	return quote(strings.Join(run, ""))
}

// wordsFrom is how many tokens, counted from the start of run (or from its
// end), hold n words, the spaces between them included.
func wordsFrom(run []string, n int, fromEnd bool) int {
	words := 0
	for k := range run {
		t := run[k]
		if fromEnd {
			t = run[len(run)-1-k]
		}
		if runeClass([]rune(t)[0]) != 2 {
			if words == n {
				return k
			}
			words++
		}
	}
	return len(run)
}

// clip renders a changed span, cut to 2×Elide bytes with a
// "…N more bytes…" note when it is longer than 4×Elide.
func (r *renderer) clip(s string, quote func(string) string) string {
	if len(s) <= 4*r.cfg.Elide {
		return quote(s)
	}
	n := runeCut(s, 2*r.cfg.Elide)
	return quote(s[:n]) + r.elision(len(s)-n, "more")
}

// runeCut is the largest rune boundary at or before n in s.
func runeCut(s string, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
