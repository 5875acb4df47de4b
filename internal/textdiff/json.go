package textdiff

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Config configures the rendering. The zero value is plain text with the
// defaults below.
type Config struct {
	// Color marks changes with ANSI colours and reverse video instead of
	// [-removed-] / {+added+} markers. The caller decides (a terminal, and
	// NO_COLOR unset); false: plain text.
	Color bool
	// MaxBytes caps the output; whole lines past it are left out and
	// counted in a closing note. 0: 8192. Negative: no cap.
	MaxBytes int
	// Context is how many unchanged words are kept on each side of a
	// changed word. 0: 5.
	Context int
	// Elide is the length past which an unchanged context line or value is
	// shortened to its start and a "…N bytes unchanged…" note; a changed
	// span longer than 4×Elide is cut to 2×Elide. 0: 80.
	Elide int
	// Width is the width of the terminal the diff is printed on: Elide
	// becomes what fills a line of it (Width less the indentation and the
	// elision note). 0: Elide as set.
	Width int
}

// widthMargin is what a line keeps beside its elided text: the
// indentation and the "…N bytes unchanged…" note.
const widthMargin = 30

func (c Config) withDefaults() Config {
	if c.MaxBytes == 0 {
		c.MaxBytes = 8192
	}
	if c.Context <= 0 {
		c.Context = 5
	}
	if c.Width > 0 {
		c.Elide = max(c.Width-widthMargin, minElide)
	}
	if c.Elide <= 0 {
		c.Elide = 80
	}
	return c
}

// JSONLines renders one changed line pair: want (the fixture's line) and got
// (the run's). Two JSON objects are shown as their changed paths; anything
// else as a "-" and a "+" line with the changed words marked. The result
// ends in a newline and is "" when want == got.
func JSONLines(want, got string, cfg Config) string {
	if want == got {
		return ""
	}
	r := newRenderer(cfg)
	r.pair(want, got)
	return r.String()
}

// JSONUnified rewrites a unified line diff ("--- ", "+++ ", "@@ " headers, then
// lines starting with ' ', '-' or '+') for a person: in each change block
// (the removed and added lines between two context lines), removed lines are
// paired in order with added lines of the same event type (a JSON object's
// "type" member) and each pair is rendered as [JSONLines] does; unpaired and context lines are shown with invisibles made visible
// and long context lines elided. Other lines pass through. The output is
// capped at cfg.MaxBytes.
func JSONUnified(diff string, cfg Config) string {
	r := newRenderer(cfg)
	var dels, adds []string
	flush := func() {
		r.block(dels, adds)
		dels, adds = dels[:0], adds[:0]
	}
	inHunk := false
	for _, line := range strings.SplitAfter(diff, "\n") {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case line == "":
			continue
		case !inHunk && (strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "+++ ")):
			r.line(0, line)
		case strings.HasPrefix(line, "@@"):
			flush()
			inHunk = true
			r.line('@', line)
		case inHunk && line[0] == '-':
			dels = append(dels, line[1:])
		case inHunk && line[0] == '+':
			adds = append(adds, line[1:])
		case inHunk && line[0] == ' ':
			flush()
			r.context(line[1:])
		default:
			flush()
			r.line(0, line)
		}
	}
	flush()
	return r.String()
}

// block renders one change block: the removed lines are paired with added
// ones in order, a removed line only with an added one of the same event
// type (a JSON object's "type" member; lines without one pair with each
// other), so that an inserted event does not shift every pair after it.
func (r *renderer) block(dels, adds []string) {
	kd, ka := eventTypes(dels), eventTypes(adds)
	for _, e := range Seq(len(dels), len(adds), func(i, j int) bool { return kd[i] == ka[j] }) {
		switch e.Kind {
		case ' ':
			r.pair(dels[e.A], adds[e.B])
		case '-':
			r.raw('-', dels[e.A])
		case '+':
			r.raw('+', adds[e.B])
		}
	}
}

// eventTypes is each line's top-level "type" string, "" when it has none.
func eventTypes(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		var ev struct{ Type any }
		if isObject(l) && json.Unmarshal([]byte(l), &ev) == nil {
			if t, ok := ev.Type.(string); ok {
				out[i] = t
			}
		}
	}
	return out
}

// pair renders one changed line pair.
func (r *renderer) pair(want, got string) {
	if isObject(want) && isObject(got) {
		if cs := changes("$", 0, json.RawMessage(want), json.RawMessage(got), nil); len(cs) > 0 {
			r.jsonPair(want, cs)
			return
		}
	}
	w, g, _ := r.wordDiff(want, got, visibleRaw)
	r.line('-', w)
	r.line('+', g)
}

// jsonPair renders the changes between two JSON lines: a summary, then per
// change its path and the two sides, indented.
func (r *renderer) jsonPair(want string, cs []change) {
	changed := 0
	var body []func()
	for _, c := range cs {
		n, emit := r.change(c)
		changed += n
		body = append(body, emit)
	}
	plural := "s"
	if len(cs) == 1 {
		plural = ""
	}
	r.line('~', fmt.Sprintf("json: %d changed path%s, %s bytes unchanged", len(cs), plural, groupInt(max(len(want)-changed, 0))))
	for _, emit := range body {
		emit()
	}
}

// change prepares one change: the want bytes it accounts for, and the
// function that writes it.
func (r *renderer) change(c change) (int, func()) {
	const indent = "   "
	if kind(c.want) == '"' && kind(c.got) == '"' {
		ws, gs, n := r.stringChange(c.want, c.got)
		return n, func() {
			r.line('~', c.path)
			r.line('-', indent+ws)
			r.line('+', indent+gs)
		}
	}
	return len(c.want), func() {
		r.line('~', c.path)
		if c.want != nil {
			r.line('-', indent+r.value(c.want))
		}
		if c.got != nil {
			r.line('+', indent+r.value(c.got))
		}
	}
}
