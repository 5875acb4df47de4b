package textdiff

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
)

// change is one difference found between two JSON values: at path, want
// became got (nil want: only in got; nil got: only in want).
type change struct {
	path      string
	want, got json.RawMessage
}

// maxDepth bounds the walk: containers nested deeper are reported whole,
// which keeps the cost linear in the input for any nesting.
const maxDepth = 32

// changes lists the differences between two JSON values, depth first, keys
// in sorted order. Values equal after compaction are not walked.
func changes(path string, depth int, want, got json.RawMessage, out []change) []change {
	if compactEqual(want, got) {
		return out
	}
	switch kw, kg := kind(want), kind(got); {
	case depth >= maxDepth:
	case kw == '{' && kg == '{':
		return objectChanges(path, depth+1, want, got, out)
	case kw == '[' && kg == '[':
		return arrayChanges(path, depth+1, want, got, out)
	}
	return append(out, change{path, want, got})
}

func objectChanges(path string, depth int, want, got json.RawMessage, out []change) []change {
	var mw, mg map[string]json.RawMessage
	if json.Unmarshal(want, &mw) != nil || json.Unmarshal(got, &mg) != nil {
		return append(out, change{path, want, got})
	}
	keys := make([]string, 0, len(mw)+len(mg))
	for k := range mw {
		keys = append(keys, k)
	}
	for k := range mg {
		if _, ok := mw[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		p := path + member(k)
		w, inW := mw[k]
		g, inG := mg[k]
		switch {
		case !inW:
			out = append(out, change{p, nil, g})
		case !inG:
			out = append(out, change{p, w, nil})
		default:
			out = changes(p, depth, w, g, out)
		}
	}
	return out
}

// arrayChanges aligns the elements (an element diff), then walks elements
// that were replaced one for one and reports the rest as removed or added.
func arrayChanges(path string, depth int, want, got json.RawMessage, out []change) []change {
	var aw, ag []json.RawMessage
	if json.Unmarshal(want, &aw) != nil || json.Unmarshal(got, &ag) != nil {
		return append(out, change{path, want, got})
	}
	cw, cg := compactAll(aw), compactAll(ag)
	for _, p := range Align(len(aw), len(ag), func(i, j int) bool { return cw[i] == cg[j] }) {
		switch {
		case p.B < 0:
			out = append(out, change{fmt.Sprintf("%s[%d]", path, p.A), aw[p.A], nil})
		case p.A < 0:
			out = append(out, change{fmt.Sprintf("%s[%d]", path, p.B), nil, ag[p.B]})
		default:
			out = changes(index(path, p.A, p.B), depth, aw[p.A], ag[p.B], out)
		}
	}
	return out
}

// index names an array element, "[3]", or "[3→4]" when it moved.
func index(path string, i, j int) string {
	if i == j {
		return fmt.Sprintf("%s[%d]", path, i)
	}
	return fmt.Sprintf("%s[%d→%d]", path, i, j)
}

var ident = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// member names an object member: ".key", or `["odd key"]`.
func member(k string) string {
	if ident.MatchString(k) {
		return "." + k
	}
	b, _ := json.Marshal(k)
	return "[" + string(b) + "]"
}

// kind is the first byte of a JSON value: '{', '[', '"', or another.
func kind(v json.RawMessage) byte {
	v = bytes.TrimLeft(v, " \t\r\n")
	if len(v) == 0 {
		return 0
	}
	return v[0]
}

// compactAll returns each value compacted once, for cheap comparisons.
func compactAll(vs []json.RawMessage) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = compact(v)
	}
	return out
}

func compact(v json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return string(v)
	}
	return b.String()
}

func compactEqual(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// isObject reports whether line is one whole JSON object.
func isObject(line string) bool {
	return kind(json.RawMessage(line)) == '{' && json.Valid([]byte(line))
}
