package check

import (
	"bytes"
	"slices"

	"github.com/acpsnap/acpsnap/internal/conformance"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// rules are the corpus's and the scenario's extra normalization, applied
// after normalize on both sides alike: scrub rules on every line of stdout
// and the logs, then floating update kinds gathered per session.
type rules struct {
	scrub    []scenario.ScrubRule
	floating []string
	redact   func(line []byte) []byte // Config.Redact, after the scrub rules
}

// rulesFor merges the corpus's rules with the manifest's (the manifest's
// scrub rules run after the corpus's; floating kinds are their union).
func rulesFor(c *scenario.Corpus, m *scenario.Manifest) rules {
	var r rules
	if c != nil {
		r.scrub = append(r.scrub, c.Scrub...)
		r.floating = append(r.floating, c.Floating...)
	}
	r.scrub = append(r.scrub, m.Scrub...)
	for _, k := range m.Floating {
		if !slices.Contains(r.floating, k) {
			r.floating = append(r.floating, k)
		}
	}
	return r
}

// apply rewrites t in place.
func (r rules) apply(t *scenario.Transcript) {
	if len(r.scrub) > 0 || r.redact != nil {
		t.Stdout = r.scrubLines(t.Stdout)
		for i := range t.Logs {
			t.Logs[i] = r.scrubLines(t.Logs[i])
		}
	}
	if len(r.floating) > 0 {
		t.Stdout = float(t.Stdout, r.floating)
	}
}

// scrubLines applies every scrub rule to b, then the redact hook to each
// of its lines.
func (r rules) scrubLines(b []byte) []byte {
	for _, rule := range r.scrub {
		if re := rule.Regexp(); re != nil {
			b = re.ReplaceAll(b, []byte(rule.Replace))
		}
	}
	if r.redact == nil {
		return b
	}
	var out []byte
	for _, line := range bytes.SplitAfter(b, []byte("\n")) {
		body, nl := bytes.CutSuffix(line, []byte("\n"))
		if len(line) == 0 {
			continue
		}
		out = append(out, r.redact(bytes.Clone(body))...)
		if nl {
			out = append(out, '\n')
		}
	}
	return out
}

// float moves every session/update notification whose update kind is
// floating out of wire order: they are compared as a set per session, so
// they follow the other lines, one group per session (in order of the
// session's first floating update), sorted and without duplicates.
func float(stdout []byte, kinds []string) []byte {
	var kept []byte
	groups := map[string][][]byte{}
	var order []string
	for _, line := range bytes.SplitAfter(stdout, []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		session, ok := floatingUpdate(line, kinds)
		if !ok {
			kept = append(kept, line...)
			continue
		}
		if _, seen := groups[session]; !seen {
			order = append(order, session)
		}
		groups[session] = append(groups[session], line)
	}
	for _, s := range order {
		g := groups[s]
		slices.SortFunc(g, bytes.Compare)
		for _, line := range slices.CompactFunc(g, bytes.Equal) {
			kept = append(kept, line...)
		}
	}
	return kept
}

// floatingUpdate reports whether line is a session/update notification of
// one of kinds, and its session.
func floatingUpdate(line []byte, kinds []string) (string, bool) {
	if !bytes.Contains(line, []byte(`"session/update"`)) {
		return "", false
	}
	n, ok := conformance.ParseUpdate(line)
	if !ok {
		return "", false
	}
	return string(n.Session), slices.Contains(kinds, n.Kind)
}
