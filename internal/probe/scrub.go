package probe

import (
	"regexp"
	"strings"
)

// contextLen bounds the literal text a scrub pattern keeps on either side
// of the part that varies.
const contextLen = 24

// scrubFor is a scrub rule that makes the values of d equal in the JSON
// text they appear in ("key":VALUE): the narrowest that works of a
// pattern keeping what the values share and matching the part that
// varies, one for a number, and one for any string under that key.
// Setting{} when none does.
func scrubFor(d diff) Setting {
	key := d.key()
	texts := make([]string, len(d.vals))
	for i, v := range d.vals {
		if v == any(absent) {
			return Setting{}
		}
		texts[i] = encoded(v)
		if key != "" {
			texts[i] = quoteKey(key) + ":" + texts[i]
		}
	}
	for _, c := range candidates(key, d.vals, texts) {
		if settles(c, texts) {
			return Setting{Key: "scrub", Item: "{ pattern: " + yamlQuote(c.pattern) + ", replace: " + yamlQuote(c.replace) + " }"}
		}
	}
	return Setting{}
}

type rule struct{ pattern, replace string }

// candidates are the rules to try, narrowest first.
func candidates(key string, vals []any, texts []string) []rule {
	name := placeholder(key)
	left := ""
	if key != "" {
		left = regexp.QuoteMeta(quoteKey(key)) + `:\s*`
	}
	var out []rule
	if strs, ok := inners(vals); ok {
		if r, ok := narrow(strs, left, name); ok {
			out = append(out, r)
		}
		if key != "" {
			out = append(out, rule{"(" + left + `")(?:[^"\\]|\\.)*(")`, "${1}" + name + "${2}"})
		}
	}
	if key != "" {
		out = append(out, rule{"(" + left + `)-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?`, "${1}0"})
	}
	return out
}

// inners are the JSON-encoded string values without their quotes.
func inners(vals []any) ([]string, bool) {
	out := make([]string, len(vals))
	for i, v := range vals {
		if _, ok := v.(string); !ok {
			return nil, false
		}
		e := encoded(v)
		out[i] = e[1 : len(e)-1]
	}
	return out, true
}

// narrow keeps what every value starts and ends with (up to contextLen
// characters each, never splitting a word) and matches the middle by the
// character class it is made of.
func narrow(strs []string, left, name string) (rule, bool) {
	pre, suf, mids := shared(strs)
	class, ok := classOf(mids)
	if !ok {
		return rule{}, false
	}
	l, r := "", ""
	if len(pre) > contextLen {
		l = regexp.QuoteMeta(pre[len(pre)-contextLen:])
	} else {
		l = left + `"` + regexp.QuoteMeta(pre)
	}
	if len(suf) > contextLen {
		r = regexp.QuoteMeta(suf[:contextLen])
	} else {
		r = regexp.QuoteMeta(suf) + `"`
	}
	return rule{"(" + l + ")" + class + "(" + r + ")", "${1}" + name + "${2}"}, true
}

// shared splits the values into what they all start and end with, never
// inside a word, and the middles that differ.
func shared(strs []string) (pre, suf string, mids []string) {
	pre = commonPrefix(strs)
	rest := make([]string, len(strs))
	for i, s := range strs {
		rest[i] = s[len(pre):]
	}
	suf = commonSuffix(rest)
	mids = make([]string, len(strs))
	for i, s := range rest {
		mids[i] = s[:len(s)-len(suf)]
	}
	return backOff(pre, suf, mids)
}

func commonPrefix(strs []string) string {
	p := strs[0]
	for _, s := range strs[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}

func commonSuffix(strs []string) string {
	p := strs[0]
	for _, s := range strs[1:] {
		for !strings.HasSuffix(s, p) {
			p = p[1:]
		}
	}
	return p
}

// backOff moves word characters from the shared prefix and suffix into
// the middles while a middle continues the word: "run-a8" and "run-ac"
// share "run-a", but the part that varies is the word after "run-".
func backOff(pre, suf string, mids []string) (string, string, []string) {
	for len(pre) > 0 && word(pre[len(pre)-1]) && anyMid(mids, func(m string) bool { return m == "" || word(m[0]) }) {
		c := pre[len(pre)-1:]
		pre = pre[:len(pre)-1]
		for i := range mids {
			mids[i] = c + mids[i]
		}
	}
	for len(suf) > 0 && word(suf[0]) && anyMid(mids, func(m string) bool { return m == "" || word(m[len(m)-1]) }) {
		c := suf[:1]
		suf = suf[1:]
		for i := range mids {
			mids[i] += c
		}
	}
	return pre, suf, mids
}

func anyMid(mids []string, f func(string) bool) bool {
	for _, m := range mids {
		if f(m) {
			return true
		}
	}
	return false
}

func word(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// classes are the character classes a varying part is matched by,
// narrowest first.
var classes = []struct{ re, class string }{
	{`^[0-9]+$`, `\d+`},
	{`^[0-9a-f]+$`, `[0-9a-f]+`},
	{`^[0-9A-F]+$`, `[0-9A-F]+`},
	{`^[0-9A-Za-z]+$`, `[0-9A-Za-z]+`},
	{`^[0-9A-Za-z._:+-]+$`, `[0-9A-Za-z._:+-]+`},
	{`^[^"\\]+$`, `[^"\\]+?`},
}

var classRes = func() []*regexp.Regexp {
	out := make([]*regexp.Regexp, len(classes))
	for i, c := range classes {
		out[i] = regexp.MustCompile(c.re)
	}
	return out
}()

func classOf(mids []string) (string, bool) {
	for i, re := range classRes {
		all := true
		for _, m := range mids {
			if !re.MatchString(m) {
				all = false
				break
			}
		}
		if all {
			return classes[i].class, true
		}
	}
	return "", false
}

// settles reports whether r matches every text and makes them all equal.
func settles(r rule, texts []string) bool {
	re, err := regexp.Compile(r.pattern)
	if err != nil {
		return false
	}
	var first string
	for i, t := range texts {
		if !re.MatchString(t) {
			return false
		}
		got := re.ReplaceAllString(t, r.replace)
		if i == 0 {
			first = got
		} else if got != first {
			return false
		}
	}
	return true
}

// placeholder is "{{key}}" ("{{value}}" without a key), literal in a
// replacement.
func placeholder(key string) string {
	k := strings.Map(func(r rune) rune {
		if r < 128 && word(byte(r)) || r == '_' {
			return r
		}
		return -1
	}, key)
	if k == "" {
		k = "value"
	}
	return "{{" + k + "}}"
}

func quoteKey(key string) string { return encoded(key) }

// yamlQuote is s as a single-quoted YAML scalar.
func yamlQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
