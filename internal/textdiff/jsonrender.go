package textdiff

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ANSI sequences used when Config.Color is set.
const (
	red     = "\x1b[31m"
	green   = "\x1b[32m"
	cyan    = "\x1b[36m"
	reverse = "\x1b[7m"
	noRev   = "\x1b[27m"
	dim     = "\x1b[2m"
	noDim   = "\x1b[22m"
	reset   = "\x1b[0m"
)

// renderer accumulates output lines up to the byte cap and counts what it
// left out.
type renderer struct {
	cfg        Config
	sb         strings.Builder
	leftLines  int
	leftBytes  int
	shortShown bool // a line was cut to fit
}

func newRenderer(cfg Config) *renderer {
	return &renderer{cfg: cfg.withDefaults()}
}

// line writes one output line: kind is its first column ('-', '+', '~',
// '@', or 0 for a line written as it is).
func (r *renderer) line(kind byte, text string) {
	s := text
	switch kind {
	case '~':
		s = "~ " + text
	case '-', '+', ' ':
		s = string(kind) + text
	}
	if r.cfg.Color {
		switch kind {
		case '-':
			s = red + s + reset
		case '+':
			s = green + s + reset
		case '~', '@':
			s = cyan + s + reset
		}
	}
	r.emit(s + "\n")
}

// emit appends s unless the cap is reached; a first line longer than the
// whole cap is cut rather than dropped.
func (r *renderer) emit(s string) {
	limit := r.cfg.MaxBytes
	switch {
	case limit < 0 || r.sb.Len()+len(s) <= limit:
		r.sb.WriteString(s)
	case r.sb.Len() == 0:
		n := runeCut(s, limit)
		r.sb.WriteString(s[:n])
		if r.cfg.Color {
			r.sb.WriteString(reset)
		}
		r.sb.WriteString("\n")
		r.leftBytes += len(s) - n
		r.shortShown = true
	default:
		r.leftLines++
		r.leftBytes += len(s)
	}
}

// String is the output with, when something was left out, a closing note.
func (r *renderer) String() string {
	if r.leftLines == 0 && !r.shortShown {
		return r.sb.String()
	}
	what := fmt.Sprintf("%s bytes", groupInt(r.leftBytes))
	if r.leftLines > 0 {
		what = fmt.Sprintf("%s more line%s (%s)", groupInt(r.leftLines), plural(r.leftLines), what)
	}
	return r.sb.String() + fmt.Sprintf("… %s left out: the diff is capped at %s bytes\n", what, groupInt(r.cfg.MaxBytes))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// raw writes a removed or added line that has no partner.
func (r *renderer) raw(kind byte, text string) {
	r.line(kind, r.clip(text, visibleRaw))
}

// context writes an unchanged line, elided past Elide bytes.
func (r *renderer) context(text string) {
	n := runeCut(text, r.cfg.Elide)
	if len(text)-n < minElide {
		r.line(' ', visibleRaw(text))
		return
	}
	r.line(' ', visibleRaw(text[:n])+r.elision(len(text)-n, "unchanged"))
}

// stringChange word-diffs two JSON string values and returns both sides as
// quoted literals, and the want bytes that changed.
func (r *renderer) stringChange(want, got json.RawMessage) (string, string, int) {
	var a, b string
	if json.Unmarshal(want, &a) != nil || json.Unmarshal(got, &b) != nil {
		return r.value(want), r.value(got), len(want)
	}
	if len(a) <= 40 && len(b) <= 40 {
		return `"` + quoteJSON(a) + `"`, `"` + quoteJSON(b) + `"`, len(want)
	}
	ws, gs, n := r.wordDiff(a, b, quoteJSON)
	return `"` + ws + `"`, `"` + gs + `"`, n
}

// value shows a JSON value that was added, removed or replaced, compacted
// and elided past Elide bytes.
func (r *renderer) value(v json.RawMessage) string {
	s := compact(v)
	n := runeCut(s, r.cfg.Elide)
	if len(s)-n < minElide {
		return visibleRaw(s)
	}
	return visibleRaw(s[:n]) + r.elision(len(s)-n, "more")
}

// mark highlights a changed span inside a '-' or '+' line.
func (r *renderer) mark(kind byte, s string) string {
	switch {
	case r.cfg.Color:
		return reverse + s + noRev
	case kind == '-':
		return "[-" + s + "-]"
	default:
		return "{+" + s + "+}"
	}
}

// elision is the "…N bytes unchanged…" (or "…N more bytes…") note.
func (r *renderer) elision(n int, what string) string {
	var s string
	if what == "more" {
		s = fmt.Sprintf("…%s more bytes…", groupInt(n))
	} else {
		s = fmt.Sprintf("…%s bytes %s…", groupInt(n), what)
	}
	if r.cfg.Color {
		return dim + s + noDim
	}
	return s
}
