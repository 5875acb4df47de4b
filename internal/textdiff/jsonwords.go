package textdiff

import (
	"strings"
	"unicode/utf8"
)

// minElide is the fewest bytes worth replacing with an elision note.
const minElide = 24

// wordDiff renders the two sides of a changed text: want with its deleted
// words marked, got with its inserted words marked, and the unchanged runs
// between changes cut down to ctx words either side with a
// "…N bytes unchanged…" note. quote makes each piece visible. It returns the
// two rendered sides and the number of want bytes that changed.
func (r *renderer) wordDiff(a, b string, quote func(string) string) (want, got string, changed int) {
	segs := Words(a, b)
	var ws, gs strings.Builder
	for i, s := range segs {
		if !s.Equal {
			d, n := s.Want, s.Got
			changed += len(d)
			if d != "" {
				ws.WriteString(r.mark('-', r.clip(d, quote)))
			}
			if n != "" {
				gs.WriteString(r.mark('+', r.clip(n, quote)))
			}
			continue
		}
		text := r.unchanged(s.Want, i > 0, i < len(segs)-1, quote)
		ws.WriteString(text)
		gs.WriteString(text)
	}
	return ws.String(), gs.String(), changed
}

// unchanged renders an equal run, keeping ctx words next to a change on
// either side (before, after) and eliding the rest.
func (r *renderer) unchanged(run string, before, after bool, quote func(string) string) string {
	if head, cut, tail := Keep(run, r.cfg.Context, before, after); cut >= minElide {
		return quote(head) + r.elision(cut, "unchanged") + quote(tail)
	}
	return quote(run)
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
