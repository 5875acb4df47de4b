package report

import (
	"strings"

	"github.com/acpsnap/acpsnap/internal/textdiff"
)

// DiffLine is one line of a failure's diff, ready for the HTML view: its
// class (the unified-diff role of its first character) and its pieces,
// the changed words marked.
type DiffLine struct {
	Class string // "del", "ins", "path" (a "~" line), "hunk", "head" or "" (context)
	Parts []DiffPart
}

// DiffPart is a run of a diff line; Mark is "del" or "ins" for changed
// words, "" for the rest.
type DiffPart struct {
	Text, Mark string
}

// markers are the ways a rendered diff marks changed words
// (internal/textdiff): the plain markers, and reverse video when the diff
// was rendered for a terminal.
var markers = []struct{ open, close, mark string }{
	{"[-", "-]", "del"},
	{"{+", "+}", "ins"},
	{"\x1b[7m", "\x1b[27m", ""}, // the line's class says which side
}

// ParseDiff splits a rendered diff (check.Outcome.Diff) into lines and
// marks the changed words. Other escape sequences are dropped.
func ParseDiff(diff string) []DiffLine {
	var out []DiffLine
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		l = stripSGR(l, "\x1b[7m", "\x1b[27m")
		dl := DiffLine{Class: lineClass(l)}
		dl.Parts = markWords(l, dl.Class)
		out = append(out, dl)
	}
	markPairs(out)
	return out
}

func lineClass(l string) string {
	switch {
	case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
		return "head"
	case strings.HasPrefix(l, "@@"):
		return "hunk"
	case strings.HasPrefix(l, "-"):
		return "del"
	case strings.HasPrefix(l, "+"):
		return "ins"
	case strings.HasPrefix(l, "~"):
		return "path"
	}
	return ""
}

// markWords cuts l at the word markers.
func markWords(l, class string) []DiffPart {
	var parts []DiffPart
	for l != "" {
		at, m := -1, -1
		for i, mk := range markers {
			if j := strings.Index(l, mk.open); j >= 0 && (at < 0 || j < at) {
				at, m = j, i
			}
		}
		if at < 0 {
			break
		}
		mk := markers[m]
		end := strings.Index(l[at+len(mk.open):], mk.close)
		if end < 0 {
			break
		}
		mark := mk.mark
		if mark == "" {
			mark = class
		}
		parts = append(parts, DiffPart{Text: l[:at]}, DiffPart{Text: l[at+len(mk.open) : at+len(mk.open)+end], Mark: mark})
		l = l[at+len(mk.open)+end+len(mk.close):]
	}
	return append(parts, DiffPart{Text: l})
}

// stripSGR drops the ANSI colour sequences of l but the keep ones.
func stripSGR(l string, keep ...string) string {
	if !strings.Contains(l, "\x1b[") {
		return l
	}
	var sb strings.Builder
	for {
		i := strings.Index(l, "\x1b[")
		if i < 0 {
			break
		}
		end := strings.IndexByte(l[i:], 'm')
		if end < 0 {
			break
		}
		seq := l[i : i+end+1]
		sb.WriteString(l[:i])
		for _, k := range keep {
			if seq == k {
				sb.WriteString(seq)
			}
		}
		l = l[i+end+1:]
	}
	sb.WriteString(l)
	return sb.String()
}

// markPairs marks the changed words of each removed line paired, in
// order, with an added line of the same block when neither marks words of
// its own (the JSON diff marks only long strings).
func markPairs(lines []DiffLine) {
	for i := 0; i < len(lines); {
		dels := run(lines[i:], "del")
		ins := run(lines[i+dels:], "ins")
		for k := 0; k < min(dels, ins); k++ {
			d, a := &lines[i+k], &lines[i+dels+k]
			if len(d.Parts) == 1 && len(a.Parts) == 1 {
				d.Parts, a.Parts = splitWords(d.Parts[0].Text, a.Parts[0].Text)
			}
		}
		i += max(1, dels+ins)
	}
}

// run is how many lines from the start of lines have class c.
func run(lines []DiffLine, c string) int {
	n := 0
	for n < len(lines) && lines[n].Class == c {
		n++
	}
	return n
}

// splitWords marks the words that differ between a removed line and an
// added one (their "-" and "+" are not compared), by the word diff the
// stdout diff uses (internal/textdiff).
func splitWords(del, ins string) (d, a []DiffPart) {
	d, a = []DiffPart{{Text: del[:1]}}, []DiffPart{{Text: ins[:1]}}
	for _, s := range textdiff.Words(del[1:], ins[1:]) {
		if s.Equal {
			d, a = append(d, DiffPart{Text: s.Want}), append(a, DiffPart{Text: s.Want})
			continue
		}
		if s.Want != "" {
			d = append(d, DiffPart{Text: s.Want, Mark: "del"})
		}
		if s.Got != "" {
			a = append(a, DiffPart{Text: s.Got, Mark: "ins"})
		}
	}
	return d, a
}
