package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/internal/conformance"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// wireLines are a run's messages, both sides, in the order the client saw
// them: each message the client wrote placed before the first stdout line
// recorded after it was written.
func wireLines(res *harness.Result) []conformance.Line {
	out := make([]conformance.Line, 0, len(res.Stdout)+len(res.Sent))
	sent, start := 0, 0
	for i, raw := range res.Stdout {
		for sent < len(res.Sent) && res.Sent[sent].After <= i {
			s := res.Sent[sent]
			out = append(out, conformance.Line{Start: s.Incarnation, Raw: s.Line})
			sent++
		}
		for start+1 < len(res.Incarnations) && res.Incarnations[start+1] <= i {
			start++
		}
		out = append(out, conformance.Line{Agent: true, N: i + 1, Start: start, Raw: raw})
	}
	for _, s := range res.Sent[sent:] {
		out = append(out, conformance.Line{Start: s.Incarnation, Raw: s.Line})
	}
	return out
}

// conformanceError is the protocol rules a run broke that its corpus does
// not acknowledge, its lines shown as got normalized them; nil when none.
func conformanceError(res *harness.Result, got *scenario.Transcript, corpus *scenario.Corpus) error {
	b := protocolBreaks(res, corpus)
	if b == nil {
		return nil
	}
	b.show(got)
	return b
}

// wireCheck is protocolBreaks run in the background (harness.Config.OnWire)
// from the last step's end, while the agent exits, and beside the harvest
// and the normalizing of the live side.
type wireCheck struct {
	n      [3]int // the wire it checks: stdout lines, messages sent, incarnations
	done   chan struct{}
	broken *Broken
}

// maxOverlapped is the most stdout bytes whose wire is checked in the
// background: past it, the check runs before normalizing releases the raw
// lines, so a large output is never held twice.
const maxOverlapped = 1 << 20

// checkWire starts checking the wire of a run that ended (nil when its
// stdout is too large to check beside the rest: protocolBreaks checks it
// later, as it would have).
func checkWire(stdout [][]byte, sent []harness.Sent, incarnations []int, corpus *scenario.Corpus) *wireCheck {
	n := 0
	for _, l := range stdout {
		if n += len(l); n > maxOverlapped {
			return nil
		}
	}
	w := &wireCheck{n: [3]int{len(stdout), len(sent), len(incarnations)}, done: make(chan struct{})}
	// normalizeLive drops each line from stdout's array as it goes: the
	// check reads a copy of the array (the lines are shared, never changed).
	res := &harness.Result{Stdout: slices.Clone(stdout), Sent: sent, Incarnations: incarnations}
	go func() {
		defer close(w.done)
		w.broken = protocolBreaks(res, corpus)
	}()
	return w
}

// wait returns what the check found, once it is done.
func (w *wireCheck) wait() *Broken {
	<-w.done
	return w.broken
}

// protocolBreaks checks res's wire before normalizing releases its stdout
// (normalizeLive): the rules it broke that corpus does not acknowledge,
// holding the raw lines to show until show; nil when none.
func protocolBreaks(res *harness.Result, corpus *scenario.Corpus) *Broken {
	var vs []conformance.Violation
	for _, v := range conformance.Check(wireLines(res)) {
		if !corpus.Acknowledged(v.Rule.ID) {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 {
		return nil
	}
	return &Broken{Violations: vs, shown: res.Stdout}
}

// show makes b show the lines as got normalized them (tokens for the
// run's paths and ids, so the message is the same on every run) when
// normalizing kept one line per line; else the raw ones stay.
func (b *Broken) show(got *scenario.Transcript) {
	if got == nil {
		return
	}
	norm := bytes.Split(bytes.TrimSuffix(got.Stdout, []byte("\n")), []byte("\n"))
	if len(norm) == len(b.shown) {
		b.shown = norm
	}
}

// Broken is the error of a run whose agent broke rules of the Agent Client
// Protocol (internal/conformance) that the corpus does not acknowledge:
// no mode writes it, and no replay passes.
type Broken struct {
	Violations []conformance.Violation
	shown      [][]byte // the stdout lines to show, by line number - 1
}

// maxShown is how many violations a message shows; the rest are counted.
const maxShown = 8

func (b *Broken) Error() string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "the agent breaks the Agent Client Protocol (%d violation(s); no mode writes a fixture of it):", len(b.Violations))
	var rules []*conformance.Rule
	for i, v := range b.Violations {
		if i == maxShown {
			fmt.Fprintf(&sb, "\n  … and %d more", len(b.Violations)-maxShown)
			break
		}
		where := "the run"
		if v.Line > 0 {
			where = fmt.Sprintf("stdout line %d", v.Line)
		}
		msg, line := v.Msg, []byte(nil)
		if v.Line > 0 && v.Line <= len(b.shown) {
			line = b.shown[v.Line-1]
			msg = tokenized(msg, v.Raw, line)
		}
		fmt.Fprintf(&sb, "\n  %s: rule %s: %s", where, v.Rule.ID, msg)
		if line != nil {
			fmt.Fprintf(&sb, "\n    %s", cut(line, 300))
		}
		if !containsRule(rules, v.Rule) {
			rules = append(rules, v.Rule)
		}
	}
	for _, r := range rules {
		fmt.Fprintf(&sb, "\n  %s, the spec: %q (%s)", r.ID, r.Spec, r.URL)
	}
	sb.WriteString("\n  a violation the agent cannot fix yet is acknowledged in acpsnap.yml, with why: conformance: {acknowledge: [{rule: " + rules[0].ID + ", reason: …}]}")
	return sb.String()
}

func containsRule(rs []*conformance.Rule, r *conformance.Rule) bool {
	for _, x := range rs {
		if x == r {
			return true
		}
	}
	return false
}

// cut is b as text, cut at n bytes.
func cut(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// tokenized is msg with each quoted value of the raw line that the shown
// (normalized) line spells as a token spelled as that token: a message
// names "{{session:1}}", as the line below it does, never a run's own id.
func tokenized(msg string, raw, shown []byte) string {
	if bytes.Equal(raw, shown) {
		return msg
	}
	var r, s any
	if json.Unmarshal(raw, &r) != nil || json.Unmarshal(shown, &s) != nil {
		return msg
	}
	pairs := map[string]string{}
	pairStrings(r, s, pairs)
	keys := slices.SortedFunc(maps.Keys(pairs), func(a, b string) int { return len(b) - len(a) })
	for _, k := range keys {
		msg = strings.ReplaceAll(msg, strconv.Quote(k), strconv.Quote(pairs[k]))
	}
	return msg
}

// pairStrings walks two decodings of one line side by side and records
// each string that differs: raw → shown.
func pairStrings(r, s any, pairs map[string]string) {
	switch r := r.(type) {
	case string:
		if t, ok := s.(string); ok && t != r {
			pairs[r] = t
		}
	case map[string]any:
		if t, ok := s.(map[string]any); ok {
			for k, v := range r {
				pairStrings(v, t[k], pairs)
			}
		}
	case []any:
		if t, ok := s.([]any); ok && len(t) == len(r) {
			for i := range r {
				pairStrings(r[i], t[i], pairs)
			}
		}
	}
}
