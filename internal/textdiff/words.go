package textdiff

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/internal/console"
)

// Tokens splits s into words (runs of letters, digits and '_'), runs of
// white space, and single other characters, so that a word diff marks whole
// words and keeps punctuation apart. Invalid bytes are single tokens.
func Tokens(s string) []string {
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

// Span is a run of a word diff: text both sides share (Equal), or a
// change: Want is what want had there, Got what got has (either may be "").
type Span struct {
	Equal     bool
	Want, Got string // for an Equal span, the same text
}

// Words is the word diff of want and got (see [Tokens] for what a word is):
// Equal spans and changed spans alternate, and concatenating the Want (or
// Got) of every span gives want (or got) back.
func Words(want, got string) []Span {
	ta, tb := Tokens(want), Tokens(got)
	var out []Span
	var w, g strings.Builder
	flush := func(equal bool) {
		if w.Len() > 0 || g.Len() > 0 {
			out = append(out, Span{Equal: equal, Want: w.String(), Got: g.String()})
		}
		w.Reset()
		g.Reset()
	}
	inEqual := false
	for _, e := range Seq(len(ta), len(tb), func(i, j int) bool { return ta[i] == tb[j] }) {
		if isEqual := e.Kind == ' '; isEqual != inEqual {
			flush(inEqual)
			inEqual = isEqual
		}
		switch e.Kind {
		case ' ':
			w.WriteString(ta[e.A])
			g.WriteString(ta[e.A])
		case '-':
			w.WriteString(ta[e.A])
		case '+':
			g.WriteString(tb[e.B])
		}
	}
	flush(inEqual)
	return out
}

// Keep cuts the text of an unchanged span down to the context around the
// changes next to it: head is its first n words when a change comes before
// it (before), tail its last n words when one follows (after), and cut the
// bytes left out between them. Spaces between kept words are kept too.
func Keep(text string, n int, before, after bool) (head string, cut int, tail string) {
	toks := Tokens(text)
	h, t := 0, 0
	if before {
		h = wordsFrom(toks, n, false)
	}
	if after {
		t = wordsFrom(toks, n, true)
	}
	if h+t >= len(toks) {
		return text, 0, ""
	}
	head = strings.Join(toks[:h], "")
	tail = strings.Join(toks[len(toks)-t:], "")
	return head, len(text) - len(head) - len(tail), tail
}

// wordsFrom is how many tokens, counted from the start of toks (or from
// its end), hold n words, the spaces between them included.
func wordsFrom(toks []string, n int, fromEnd bool) int {
	words := 0
	for k := range toks {
		t := toks[k]
		if fromEnd {
			t = toks[len(toks)-1-k]
		}
		r, _ := utf8.DecodeRuneInString(t)
		if runeClass(r) != 2 {
			if words == n {
				return k
			}
			words++
		}
	}
	return len(toks)
}

// minCut is the fewest unchanged bytes [Changed] replaces with a note.
const minCut = 24

// Changed shows a changed text as its changed words with n words of
// context: want with its removed words marked [-so-], got with its added
// words marked {+so+}, and the unchanged runs between changes cut to n
// words either side of a change with a "…N bytes unchanged…" note. Both
// sides are made visible (internal/console). It returns "", "" when want
// and got are equal.
func Changed(want, got string, n int) (w, g string) {
	if want == got {
		return "", ""
	}
	spans := Words(want, got)
	var ws, gs strings.Builder
	for i, s := range spans {
		if !s.Equal {
			if s.Want != "" {
				ws.WriteString("[-" + console.Line(s.Want) + "-]")
			}
			if s.Got != "" {
				gs.WriteString("{+" + console.Line(s.Got) + "+}")
			}
			continue
		}
		text := console.Line(s.Want)
		if head, cut, tail := Keep(s.Want, n, i > 0, i < len(spans)-1); cut >= minCut {
			text = console.Line(head) + fmt.Sprintf("…%d bytes unchanged…", cut) + console.Line(tail)
		}
		ws.WriteString(text)
		gs.WriteString(text)
	}
	return ws.String(), gs.String()
}
