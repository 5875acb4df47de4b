package probe

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/internal/visible"
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
	at := fmt.Sprintf("call %d (%s %s)", c+1, q.Method, visible.Line(q.Path))
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
// when the values share a part (a date inside a prompt: ignoring the
// whole prompt would ignore the question), else ignoring its pointer.
func requestSetting(d diff) Setting {
	if strs, ok := inners(d.vals); ok {
		if pre, suf, _ := shared(strs); pre+suf != "" {
			if s := scrubFor(d); s.Key != "" {
				return s
			}
		}
	}
	if len(d.segs) == 0 {
		return Setting{}
	}
	return Setting{Key: "model.ignore", Item: d.pointer()}
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
