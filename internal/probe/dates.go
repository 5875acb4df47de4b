package probe

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/internal/console"
)

// A date in what the agent sends its model or prints is the same in runs
// a second apart, so comparing runs never sees it; the fixture breaks when
// the day changes. dates finds the values that look like today's date or
// the time now, in the requests and on stdout of one run of each scenario.

// dateForm is one way of writing a date or a time: how to find it, how
// to read it, and the pattern a scrub matches it with.
type dateForm struct {
	find    *regexp.Regexp
	parse   func(m string, now time.Time) (time.Time, bool)
	pattern string // matches every value of the form
	token   string // what a scrub puts in its place
}

var months = "January|February|March|April|May|June|July|August|September|October|November|December"

var dateForms = []dateForm{
	{regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b`), parseLayouts(time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02T15:04Z07:00"),
		`\d{4}-\d{2}-\d{2}T[0-9:.]+(?:Z|[+-][0-9:]+)?`, "{{time}}"},
	{regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`), parseLayouts("2006-01-02"), `\d{4}-\d{2}-\d{2}`, "{{date}}"},
	{regexp.MustCompile(`\b\d{4}/\d{2}/\d{2}\b`), parseLayouts("2006/01/02"), `\d{4}/\d{2}/\d{2}`, "{{date}}"},
	{regexp.MustCompile(`\b\d{1,2}/\d{1,2}/\d{4}\b`), parseLayouts("1/2/2006", "2/1/2006"), `\d{1,2}/\d{1,2}/\d{4}`, "{{date}}"},
	{regexp.MustCompile(`\b(?:` + months + `) \d{1,2}, \d{4}\b`), parseLayouts("January 2, 2006"), `(?:` + months + `) \d{1,2}, \d{4}`, "{{date}}"},
	{regexp.MustCompile(`\b\d{1,2} (?:` + months + `) \d{4}\b`), parseLayouts("2 January 2006"), `\d{1,2} (?:` + months + `) \d{4}`, "{{date}}"},
	{regexp.MustCompile(`\b1\d{12}\b`), parseUnix(time.Millisecond), `1\d{12}`, "{{time}}"},
	{regexp.MustCompile(`\b1\d{9}\b`), parseUnix(time.Second), `1\d{9}`, "{{time}}"},
}

// nearNow is how far from now a date may be and still be today's: a day
// either side, for any time zone.
const nearNow = 36 * time.Hour

func parseLayouts(layouts ...string) func(string, time.Time) (time.Time, bool) {
	return func(m string, now time.Time) (time.Time, bool) {
		for _, l := range layouts {
			if t, err := time.Parse(l, m); err == nil {
				return t, true
			}
		}
		return time.Time{}, false
	}
}

func parseUnix(unit time.Duration) func(string, time.Time) (time.Time, bool) {
	return func(m string, now time.Time) (time.Time, bool) {
		n, err := strconv.ParseInt(m, 10, 64)
		if err != nil {
			return time.Time{}, false
		}
		return time.Unix(0, 0).Add(time.Duration(n) * unit), true
	}
}

// dateIn is the first date or time near now in s, and its form; ok false
// when there is none.
func dateIn(s string, now time.Time) (match string, form dateForm, ok bool) {
	for _, f := range dateForms {
		for _, m := range f.find.FindAllString(s, -1) {
			if t, ok := f.parse(m, now); ok && t.Sub(now).Abs() <= nearNow {
				return m, f, true
			}
		}
	}
	return "", dateForm{}, false
}

// dates lists the dates and times near now in the first run of each
// scenario: in its requests and on its stdout, each with the scrub that
// settles it.
func dates(groups []group, now time.Time) []Variance {
	if now.IsZero() {
		return nil
	}
	var out []Variance
	for _, g := range groups {
		if len(g.runs) == 0 {
			continue
		}
		r := g.runs[0]
		for c, q := range r.Requests {
			v, err := decode(q.Body)
			if err != nil {
				continue
			}
			at := fmt.Sprintf("call %d (%s %s)", c+1, q.Method, console.Line(q.Path))
			out = append(out, g.named(datesIn(v, nil, now, "request", at))...)
		}
		for _, l := range keyed(r.Stdout) {
			out = append(out, g.named(datesIn(l.v, nil, now, "stdout", l.where()))...)
		}
	}
	return out
}

// datesIn walks v and reports each string (or number) holding a date near
// now, once per path.
func datesIn(v any, segs []any, now time.Time, where, at string) []Variance {
	switch x := v.(type) {
	case map[string]any:
		var out []Variance
		for _, k := range mapKeys([]map[string]any{x}) {
			out = append(out, datesIn(x[k], append(segs[:len(segs):len(segs)], k), now, where, at)...)
		}
		return out
	case []any:
		var out []Variance
		for i, e := range x {
			out = append(out, datesIn(e, append(segs[:len(segs):len(segs)], i), now, where, at)...)
		}
		return out
	}
	text := encoded(v)
	m, f, ok := dateIn(text, now)
	if !ok {
		return nil
	}
	d := diff{segs: segs, vals: []any{v}}
	return []Variance{{Where: where, At: at, Path: d.path(), Values: []string{contextOf(text, m)}, Suggest: dateScrub(d.key(), text, m, f)}}
}

// wordStart is s from the first whole word on: the cut word, the spaces,
// punctuation and JSON escapes (\n, \u00e9) before the next word dropped.
func wordStart(s string) string {
	s = strings.TrimLeftFunc(s, func(r rune) bool { return r < 128 && word(byte(r)) })
	for len(s) > 0 {
		switch {
		case strings.HasPrefix(s, `\u`) && len(s) >= 6:
			s = s[6:]
		case s[0] == '\\' && len(s) >= 2:
			s = s[2:]
		case s[0] < 128 && !word(s[0]):
			s = s[1:]
		default:
			return s
		}
	}
	return s
}

// contextOf is the JSON text holding the date m, shown: whole when it is
// short, else the date with a few words either side.
func contextOf(text, m string) string {
	if len([]rune(text)) <= maxShown {
		return console.Line(text)
	}
	i := strings.Index(text, m)
	lo, hi := max(0, i-contextLen), min(len(text), i+len(m)+contextLen)
	for lo > 0 && !utf8.RuneStart(text[lo]) {
		lo--
	}
	for hi < len(text) && !utf8.RuneStart(text[hi]) {
		hi++
	}
	return console.Line("…" + text[lo:hi] + "…")
}

// dateScrub is the scrub rule that puts a token in place of the date m in
// the JSON text of a value under key: the words before it kept literally
// (up to contextLen characters), else the key; Setting{} when the rule
// would not settle two different dates.
func dateScrub(key, text, m string, f dateForm) Setting {
	i := strings.Index(text, m)
	left := text[max(0, i-contextLen):i]
	if i > contextLen {
		left = wordStart(left)
	}
	var r rule
	switch {
	case strings.TrimSpace(left) != "":
		r = rule{"(" + regexp.QuoteMeta(left) + ")" + f.pattern, "${1}" + f.token}
	case key != "":
		r = rule{"(" + regexp.QuoteMeta(quoteKey(key)) + `:\s*"?)` + f.pattern, "${1}" + f.token}
	default:
		return Setting{}
	}
	other := strings.Replace(text, m, otherDate(m), 1)
	if key != "" {
		text, other = quoteKey(key)+":"+text, quoteKey(key)+":"+other
	}
	if !settles(r, []string{text, other}) {
		return Setting{}
	}
	return Setting{Key: "scrub", Item: "{ pattern: " + yamlQuote(r.pattern) + ", replace: " + yamlQuote(r.replace) + " }"}
}

// otherDate is m with its last digit changed (a date of another day in
// the same form), to prove a rule matches the form, not the value.
func otherDate(m string) string {
	i := strings.LastIndexAny(m, "0123456789")
	if i < 0 {
		return m
	}
	return m[:i] + string('0'+(m[i]-'0'+1)%10) + m[i+1:]
}
