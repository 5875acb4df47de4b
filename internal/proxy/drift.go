package proxy

import (
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strings"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/strictjson"
	"github.com/acpsnap/acpsnap/internal/textdiff"
)

// Drift is a replayed request that matched no recorded exchange: the
// request changed, and only re-recording accepts that.
type Drift struct {
	Arrival int    // the request's arrival number in this run, from 1
	Method  string // of the request
	Path    string
	// Nearest is the recorded call the request was compared with: the
	// same method and path, then the same thread (system prompt,
	// instructions, previous_response_id), then the longest shared conversation prefix,
	// then the same conversation length, then the fewest changes, an
	// unconsumed call before a consumed one. 0: nothing was recorded.
	Nearest int
	Changes []Change // where the request differs from call Nearest
	Body    []byte   // the normalized request body
}

// Change is one difference between a recorded request and a live one.
// Path is a JSON path into the body ("$.input[3].content[0].text"), or
// "method", "path", "header:NAME". A value is rendered as JSON, or
// "(absent)".
type Change struct {
	Path, Recorded, Request string
}

// maxChanges bounds the changes a Drift lists.
const maxChanges = 20

// String is the drift for people: the request, the nearest recorded call
// and each change.
func (d Drift) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "request drift: %s %s (request %d) matches no recorded exchange", d.Method, d.Path, d.Arrival)
	if d.Nearest == 0 {
		b.WriteString("; nothing is recorded")
		return b.String()
	}
	fmt.Fprintf(&b, "; nearest recorded call %d differs at:", d.Nearest)
	for _, c := range d.Changes {
		fmt.Fprintf(&b, "\n  %s: recorded %s, request %s", c.Path, c.Recorded, c.Request)
	}
	if len(d.Changes) == maxChanges {
		b.WriteString("\n  …")
	}
	return b.String()
}

// drift answers a request that matched nothing and records why: the
// first MaxDrifts with their nearest recorded call, the others counted.
func (p *Proxy) drift(w http.ResponseWriter, q httplog.Request, c canonical, arrival int) {
	d := Drift{Arrival: arrival, Method: q.Method, Path: q.Path, Body: q.Body}
	p.mu.Lock()
	described := len(p.drifts) < MaxDrifts
	if described {
		p.drifts = append(p.drifts, Drift{}) // the place, held while nearest runs unlocked
	} else {
		p.moreDrifts++
	}
	slot := len(p.drifts) - 1
	p.mu.Unlock()
	if described {
		d.Nearest, d.Changes = p.nearest(c)
		p.mu.Lock()
		p.drifts[slot] = d
		p.mu.Unlock()
	}
	msg := "request drift: this request matches no recorded exchange; re-record the scenario"
	if len(d.Changes) > 0 {
		msg += fmt.Sprintf(" (nearest call %d differs at %s)", d.Nearest, d.Changes[0].Path)
	}
	p.refuse(w, &httplog.Exchange{Request: q}, "request drift", msg)
}

type score struct {
	samePath      bool
	sameThread    bool
	prefix        int
	sameLen       bool
	changes       int
	unconsumed    bool
	call          int
	changesListed []Change
}

func (s score) better(t score) bool {
	switch {
	case s.samePath != t.samePath:
		return s.samePath
	case s.sameThread != t.sameThread:
		return s.sameThread
	case s.prefix != t.prefix:
		return s.prefix > t.prefix
	case s.sameLen != t.sameLen:
		return s.sameLen
	case s.changes != t.changes:
		return s.changes < t.changes
	}
	return s.unconsumed && !t.unconsumed
}

// nearest finds the recorded request closest to c and lists the changes.
func (p *Proxy) nearest(c canonical) (int, []Change) {
	conv := p.dialect.Conversation
	items := convItems(c.Body, conv)
	var best *score
	for i, x := range p.cfg.Exchanges {
		rc := p.canonicalOf(x.Request)
		ritems := convItems(rc.Body, conv)
		s := score{samePath: rc.Method == c.Method && rc.Path == c.Path, sameLen: len(ritems) == len(items), call: i + 1,
			sameThread: reflect.DeepEqual(thread(rc.Body), thread(c.Body))}
		for s.prefix < min(len(items), len(ritems)) && reflect.DeepEqual(items[s.prefix], ritems[s.prefix]) {
			s.prefix++
		}
		var all []Change
		diffRequest(rc, c, &all)
		s.changes, s.changesListed = len(all), all[:min(len(all), maxChanges)]
		p.mu.Lock()
		s.unconsumed = !p.consumed[i]
		p.mu.Unlock()
		if best == nil || s.better(*best) {
			best = &s
		}
	}
	if best == nil {
		return 0, nil
	}
	return best.call, best.changesListed
}

// threadMembers are the top-level members, besides the conversation
// array, that tell conversations apart (the system prompt, the previous
// response a Responses request continues).
var threadMembers = []string{"instructions", "previous_response_id", "system"}

func thread(body any) []any {
	m, _ := body.(map[string]any)
	var out []any
	for _, k := range threadMembers {
		out = append(out, m[k])
	}
	return out
}

func convItems(body any, conv string) []any {
	m, _ := body.(map[string]any)
	items, _ := m[conv].([]any)
	return items
}

func diffRequest(rec, live canonical, out *[]Change) {
	if rec.Method != live.Method {
		*out = append(*out, Change{"method", render(rec.Method), render(live.Method)})
	}
	if rec.Path != live.Path {
		*out = append(*out, Change{"path", render(rec.Path), render(live.Path)})
	}
	for _, k := range unionKeys(rec.Header, live.Header) {
		a, aok := rec.Header[k]
		b, bok := live.Header[k]
		if a != b || aok != bok {
			*out = append(*out, Change{"header:" + k, renderIf(a, aok), renderIf(b, bok)})
		}
	}
	diffJSON("$", rec.Body, live.Body, out)
}

// diffJSON appends the paths where a and b (decoded JSON) differ.
func diffJSON(path string, a, b any, out *[]Change) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		for _, k := range unionKeys(am, bm) {
			av, ain := am[k]
			bv, bin := bm[k]
			if !ain || !bin {
				*out = append(*out, Change{path + member(k), renderIf(av, ain), renderIf(bv, bin)})
				continue
			}
			diffJSON(path+member(k), av, bv, out)
		}
		return
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok {
		diffArray(path, as, bs, out)
		return
	}
	sa, aok := a.(string)
	sb, bok := b.(string)
	if aok && bok && sa != sb && max(len(sa), len(sb)) > wordDiffMin {
		w, g := textdiff.Changed(sa, sb, wordContext)
		*out = append(*out, Change{path, `"` + w + `"`, `"` + g + `"`})
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, Change{path, render(a), render(b)})
	}
}

// wordDiffMin is the length past which two differing strings are shown as
// their changed words ([-old-] {+new+}) with wordContext words around each
// change, the long unchanged runs cut ("…2,812 bytes unchanged…"); shorter
// ones are shown whole.
const (
	wordDiffMin = 60
	wordContext = 4
)

// diffArray aligns the elements of two arrays by content first (an edit
// script over their canonical JSON), so one element removed or added is
// one change, not a change of every element after it; elements replaced
// one for one are compared member by member. An element's path is its
// index in the request, [i→j] when it moved from index i in the recording.
func diffArray(path string, as, bs []any, out *[]Change) {
	ka, kb := canonicalAll(as), canonicalAll(bs)
	for _, p := range textdiff.Align(len(as), len(bs), func(i, j int) bool { return ka[i] == kb[j] }) {
		switch {
		case p.B < 0:
			*out = append(*out, Change{fmt.Sprintf("%s[%d]", path, p.A), render(as[p.A]), "(absent)"})
		case p.A < 0:
			*out = append(*out, Change{fmt.Sprintf("%s[%d]", path, p.B), "(absent)", render(bs[p.B])})
		default:
			diffJSON(elementPath(path, p.A, p.B), as[p.A], bs[p.B], out)
		}
	}
}

func elementPath(path string, i, j int) string {
	if i == j {
		return fmt.Sprintf("%s[%d]", path, i)
	}
	return fmt.Sprintf("%s[%d→%d]", path, i, j)
}

// canonicalAll is each value's JSON (object keys sorted), for equality.
func canonicalAll(vs []any) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		b, _ := strictjson.Encode(v)
		out[i] = string(b)
	}
	return out
}

func unionKeys[V any](a, b map[string]V) []string {
	var ks []string
	for k := range a {
		ks = append(ks, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			ks = append(ks, k)
		}
	}
	sort.Strings(ks)
	return ks
}

// member renders an object member step of a JSON path.
func member(k string) string {
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return "[" + render(k) + "]"
		}
	}
	if k == "" {
		return `[""]`
	}
	return "." + k
}

func renderIf(v any, ok bool) string {
	if !ok {
		return "(absent)"
	}
	return render(v)
}

// render shows a JSON value, shortened to about 120 bytes.
func render(v any) string {
	b, err := strictjson.Encode(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 120 {
		return string(b[:117]) + "…"
	}
	return string(b)
}
