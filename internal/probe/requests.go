package probe

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/internal/console"
)

// requestVariance compares the runs' model requests call by call: the
// method and path, the kept headers and the body, leaving out what the
// corpus's model.ignore already does.
func requestVariance(runs []Run, ignore []string) []Variance {
	if len(runs) < 2 {
		return nil
	}
	ig := parseIgnore(ignore)
	var out []Variance
	counts := make([]string, len(runs))
	n := len(runs[0].Requests)
	for i, r := range runs {
		counts[i] = strconv.Itoa(len(r.Requests))
		n = min(n, len(r.Requests))
	}
	if !allSame(counts) {
		out = append(out, Variance{Where: "request", At: "model calls", Values: counts})
	}
	for c := range n {
		out = append(out, callVariance(runs, c, ig)...)
	}
	return out
}

// callVariance compares call c (from 0) of every run.
func callVariance(runs []Run, c int, ig ignoreRules) []Variance {
	q := runs[0].Requests[c]
	at := fmt.Sprintf("call %d (%s %s)", c+1, q.Method, console.Line(q.Path))
	var out []Variance
	lines := make([]any, len(runs))
	for i, r := range runs {
		lines[i] = r.Requests[c].Method + " " + r.Requests[c].Path
	}
	if !allEqual(lines) {
		out = append(out, Variance{Where: "request", At: at, Path: "method and path", Values: shorten(lines)})
	}
	for _, h := range headerNames(runs, c) {
		vals := make([]any, len(runs))
		for i, r := range runs {
			vals[i] = absent
			if v, ok := r.Requests[c].Header[h]; ok {
				vals[i] = v
			}
		}
		if !ig.headers[h] && !allEqual(vals) {
			out = append(out, Variance{Where: "request", At: at, Path: "header " + h, Values: shorten(vals),
				Suggest: Setting{Key: "model.ignore", Item: strconv.Quote("header:" + h)}})
		}
	}
	bodies := make([]any, len(runs))
	for i, r := range runs {
		v, err := decode(r.Requests[c].Body)
		if err != nil {
			v = string(r.Requests[c].Body)
		}
		bodies[i] = v
	}
	for _, d := range diffValues(bodies) {
		if ig.covers(d.segs) {
			continue
		}
		out = append(out, Variance{Where: "request", At: at, Path: d.path(), Values: shorten(d.vals), Suggest: requestSetting(d)})
	}
	return out
}

// requestSetting is the setting for a request value that varies: a scrub
// rule when one can be written, since a scrub applies before a request is
// matched and to the composed log alike, while model.ignore only leaves the
// part out of the match and the log still holds the value; else ignoring
// its pointer, which settles the match at least.
func requestSetting(d diff) Setting {
	if s := scrubFor(d); s.Key != "" {
		return s
	}
	if len(d.segs) == 0 {
		return Setting{}
	}
	return Setting{Key: "model.ignore", Item: d.pointer()}
}

// RequestChanges is what differs between two versions of one model
// request's JSON (a recording's and a replay's), leaf by leaf, each with
// the setting that settles it, as probe reports a request value that
// varies between its runs. A text that is not JSON is one value.
func RequestChanges(recorded, replayed []byte) []Variance {
	vals := make([]any, 2)
	for i, b := range [][]byte{recorded, replayed} {
		v, err := decode(b)
		if err != nil {
			v = string(b)
		}
		vals[i] = v
	}
	var out []Variance
	for _, d := range diffValues(vals) {
		out = append(out, Variance{Where: "request", Path: d.path(), Values: shorten(d.vals), Suggest: requestSetting(d)})
	}
	return out
}

// SettleRequest is the setting that settles a request part whose value
// differs between runs: part is "header:NAME" or the JSON pointer of a
// body value ("/metadata/trace_id"), vals its JSON text in each run. A
// header is left out of the match (model.ignore: the composed log keeps
// only allowlisted headers); a body value as requestSetting says.
func SettleRequest(part string, vals []string) Setting {
	if strings.HasPrefix(part, "header:") {
		return Setting{Key: "model.ignore", Item: strconv.Quote(part)}
	}
	d := diff{}
	for _, s := range strings.Split(strings.TrimPrefix(part, "/"), "/") {
		if part != "" {
			d.segs = append(d.segs, strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~"))
		}
	}
	for _, t := range vals {
		v, err := decode([]byte(t))
		if err != nil {
			return Setting{}
		}
		d.vals = append(d.vals, v)
	}
	return requestSetting(d)
}

func headerNames(runs []Run, c int) []string {
	var names []string
	for _, r := range runs {
		for h := range r.Requests[c].Header {
			if !slices.Contains(names, h) {
				names = append(names, h)
			}
		}
	}
	slices.Sort(names)
	return names
}

// ignoreRules are model.ignore parsed as the proxy reads it: JSON
// pointers into the body and "header:NAME".
type ignoreRules struct {
	pointers [][]string
	headers  map[string]bool
}

func parseIgnore(rules []string) ignoreRules {
	ig := ignoreRules{headers: map[string]bool{}}
	for _, r := range rules {
		if h, ok := strings.CutPrefix(r, "header:"); ok {
			ig.headers[strings.ToLower(h)] = true
			continue
		}
		var toks []string
		for _, t := range strings.Split(strings.TrimPrefix(r, "/"), "/") {
			toks = append(toks, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
		}
		ig.pointers = append(ig.pointers, toks)
	}
	return ig
}

// covers reports whether a pointer of ig is segs or one of its parents.
func (ig ignoreRules) covers(segs []any) bool {
	for _, p := range ig.pointers {
		if len(p) > len(segs) {
			continue
		}
		match := true
		for i, t := range p {
			if fmt.Sprint(segs[i]) != t {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

func allSame(s []string) bool {
	for _, v := range s[1:] {
		if v != s[0] {
			return false
		}
	}
	return true
}

func contains(s []string, v string) bool { return slices.Contains(s, v) }

func sortBy[T any](s []T, key func(T) string) {
	slices.SortStableFunc(s, func(a, b T) int { return strings.Compare(key(a), key(b)) })
}
