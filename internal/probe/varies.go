package probe

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/internal/conformance"
	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// maxDiffs bounds the differing paths reported for one line or call.
const maxDiffs = 20

// absent stands for a value one run does not have.
type absentValue struct{}

var absent = absentValue{}

// line is one stdout line, keyed for alignment across runs: its kind
// (method and update kind, or "response ID") and its occurrence of that
// kind, so an extra or moved line shifts nothing else.
type line struct {
	key, label string
	n          int // line number, from 1
	v          any
}

// keyed parses stdout into its keyed lines (a line that is not JSON is
// its own kind, "text").
func keyed(stdout []byte) []line {
	var out []line
	seen := map[string]int{}
	for i, raw := range bytes.Split(bytes.TrimRight(stdout, "\n"), []byte("\n")) {
		if len(raw) == 0 {
			continue
		}
		v, err := decode(raw)
		label := "text"
		if err == nil {
			label = lineLabel(raw, v)
		} else {
			v = string(raw)
		}
		seen[label]++
		out = append(out, line{key: fmt.Sprintf("%s#%d", label, seen[label]), label: label, n: i + 1, v: v})
	}
	return out
}

// lineLabel is a JSON-RPC line's kind (raw, decoded as v):
// "session/update KIND", the method, or "response ID".
func lineLabel(raw []byte, v any) string {
	if n, ok := conformance.ParseUpdate(raw); ok && n.Kind != "" {
		return conformance.UpdateMethod + " " + n.Kind
	}
	m, _ := v.(map[string]any)
	method, _ := m["method"].(string)
	if method != "" {
		return method
	}
	id, _ := strictjson.Encode(m["id"])
	return "response " + string(id)
}

func decode(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// stdoutVariance compares the runs' stdout line by line, aligned by key.
func stdoutVariance(runs []Run) []Variance {
	if len(runs) < 2 {
		return nil
	}
	lines := make([][]line, len(runs))
	for i, r := range runs {
		lines[i] = keyed(r.Stdout)
	}
	var out []Variance
	floated := map[string]bool{}
	for _, key := range unionKeys(lines) {
		at, vals := gather(lines, key)
		if slices.Contains(vals, any(absent)) {
			v := Variance{Where: "stdout", At: at.where(), Values: presence(vals)}
			v.Suggest, floated[at.label] = floatingFor(at.label), true
			out = append(out, v)
			continue
		}
		for _, d := range diffValues(vals) {
			out = append(out, Variance{Where: "stdout", At: at.where(), Path: d.path(), Values: shorten(d.vals), Suggest: scrubFor(d)})
		}
	}
	for _, m := range moved(lines) {
		if !floated[m.label] {
			floated[m.label] = true
			out = append(out, Variance{Where: "stdout", At: m.where(), Values: []string{"moves between runs"}, Suggest: floatingFor(m.label)})
		}
	}
	return out
}

func (l line) where() string { return fmt.Sprintf("line %d (%s)", l.n, console.Line(l.label)) }

// unionKeys are the keys of every run, in the order of the first run
// that has each.
func unionKeys(lines [][]line) []string {
	var keys []string
	seen := map[string]bool{}
	for _, run := range lines {
		for _, l := range run {
			if !seen[l.key] {
				seen[l.key] = true
				keys = append(keys, l.key)
			}
		}
	}
	return keys
}

// gather is the line with key in each run (absent where missing) and the
// first of them.
func gather(lines [][]line, key string) (line, []any) {
	var first line
	vals := make([]any, len(lines))
	for i, run := range lines {
		vals[i] = absent
		for _, l := range run {
			if l.key == key {
				vals[i] = l.v
				if first.key == "" {
					first = l
				}
				break
			}
		}
	}
	return first, vals
}

func presence(vals []any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = "present"
		if v == any(absent) {
			out[i] = "absent"
		}
	}
	return out
}

// floatingFor suggests floating for an update kind; other lines have no
// setting that floats them.
func floatingFor(label string) Setting {
	if kind, ok := strings.CutPrefix(label, "session/update "); ok {
		return Setting{Key: "floating", Item: kind}
	}
	return Setting{}
}

// moved is the lines present in every run whose order among those lines
// differs from the first run's (outside a longest common subsequence).
func moved(lines [][]line) []line {
	common := commonKeys(lines)
	base := filterKeys(lines[0], common)
	var out []line
	seen := map[string]bool{}
	for _, run := range lines[1:] {
		other := filterKeys(run, common)
		keep := lcs(base, other)
		for _, l := range base {
			if !keep[l.key] && !seen[l.key] {
				seen[l.key] = true
				out = append(out, l)
			}
		}
	}
	return out
}

func commonKeys(lines [][]line) map[string]bool {
	count := map[string]int{}
	for _, run := range lines {
		for _, l := range run {
			count[l.key]++
		}
	}
	out := map[string]bool{}
	for k, n := range count {
		if n == len(lines) {
			out[k] = true
		}
	}
	return out
}

func filterKeys(run []line, keep map[string]bool) []line {
	var out []line
	for _, l := range run {
		if keep[l.key] {
			out = append(out, l)
		}
	}
	return out
}

// maxLCS bounds the lines the order comparison looks at (n² memory).
const maxLCS = 2000

// lcs is the set of keys of a longest common subsequence of a and b.
func lcs(a, b []line) map[string]bool {
	a, b = a[:min(len(a), maxLCS)], b[:min(len(b), maxLCS)]
	t := make([][]int, len(a)+1)
	for i := range t {
		t[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i].key == b[j].key {
				t[i][j] = t[i+1][j+1] + 1
			} else {
				t[i][j] = max(t[i+1][j], t[i][j+1])
			}
		}
	}
	keep := map[string]bool{}
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i].key == b[j].key:
			keep[a[i].key] = true
			i, j = i+1, j+1
		case t[i+1][j] >= t[i][j+1]:
			i++
		default:
			j++
		}
	}
	return keep
}

// diff is one JSON path whose values differ between runs.
type diff struct {
	segs []any // path segments: string keys, int indices
	vals []any // per run; absent where a run has none
}

func (d diff) path() string {
	var b strings.Builder
	b.WriteString("$")
	for _, s := range d.segs {
		switch s := s.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", s)
		case string:
			if identifier.MatchString(s) {
				b.WriteString("." + s)
			} else {
				fmt.Fprintf(&b, "[%s]", strconv.Quote(s))
			}
		}
	}
	return b.String()
}

var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$-]*$`)

// key is the last object key of the path ("" when there is none).
func (d diff) key() string {
	for i := len(d.segs) - 1; i >= 0; i-- {
		if k, ok := d.segs[i].(string); ok {
			return k
		}
	}
	return ""
}

// pointer is the path as a JSON pointer.
func (d diff) pointer() string {
	var b strings.Builder
	for _, s := range d.segs {
		b.WriteString("/")
		switch s := s.(type) {
		case int:
			b.WriteString(strconv.Itoa(s))
		case string:
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1"))
		}
	}
	return b.String()
}

// diffValues walks the runs' values together and returns every leaf path
// whose values differ (an object or array whose shape differs is one path).
func diffValues(vals []any) []diff {
	var out []diff
	walk(nil, vals, &out)
	return out
}

func walk(segs []any, vals []any, out *[]diff) {
	if len(*out) >= maxDiffs || allEqual(vals) {
		return
	}
	if maps, ok := allMaps(vals); ok {
		for _, k := range mapKeys(maps) {
			child := make([]any, len(maps))
			for i, m := range maps {
				child[i] = absent
				if v, ok := m[k]; ok {
					child[i] = v
				}
			}
			walk(append(segs[:len(segs):len(segs)], k), child, out)
		}
		return
	}
	if arrs, ok := sameLengthArrays(vals); ok {
		for j := range arrs[0] {
			child := make([]any, len(arrs))
			for i, a := range arrs {
				child[i] = a[j]
			}
			walk(append(segs[:len(segs):len(segs)], j), child, out)
		}
		return
	}
	*out = append(*out, diff{segs: segs, vals: vals})
}

func allEqual(vals []any) bool {
	for _, v := range vals[1:] {
		if !reflect.DeepEqual(v, vals[0]) {
			return false
		}
	}
	return true
}

func allMaps(vals []any) ([]map[string]any, bool) {
	out := make([]map[string]any, len(vals))
	for i, v := range vals {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		out[i] = m
	}
	return out, true
}

func mapKeys(maps []map[string]any) []string {
	var keys []string
	for _, m := range maps {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.Sort(keys)
	return keys
}

func sameLengthArrays(vals []any) ([][]any, bool) {
	out := make([][]any, len(vals))
	for i, v := range vals {
		a, ok := v.([]any)
		if !ok || (i > 0 && len(a) != len(out[0])) {
			return nil, false
		}
		out[i] = a
	}
	return out, true
}

// encoded is a value as JSON text ("" for absent).
func encoded(v any) string {
	if v == any(absent) {
		return ""
	}
	b, _ := strictjson.Encode(v)
	return string(bytes.TrimRight(b, "\n"))
}

// maxShown bounds a shown value.
const maxShown = 48

// shorten shows each value as JSON, visible and at most maxShown runes.
func shorten(vals []any) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		s := encoded(v)
		if v == any(absent) {
			s = "(absent)"
		}
		if r := []rune(s); len(r) > maxShown {
			s = string(r[:maxShown-1]) + "…"
		}
		out[i] = console.Line(s)
	}
	return out
}
