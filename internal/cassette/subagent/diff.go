package subagent

import (
	"bytes"
	"fmt"
	"sort"
)

// The kinds of Change Diff reports.
const (
	ChangeAdded    = "added"   // only in b
	ChangeRemoved  = "removed" // only in a
	ChangeOutcome  = "outcome-changed"
	ChangeBoundary = "boundary-changed" // the outcome kind differs: the call ended at another boundary
	ChangeSame     = "same"             // in Report.Calls only
)

// Report is what Diff found, metadata only: keys, fingerprints, outcome
// kinds, stop-reason buckets and timing, never a prompt, a result or an
// error text.
type Report struct {
	// Comparable is false when the alignment would be a guess: then
	// NotComparable says why and the cassettes count as different.
	Comparable    bool     `json:"comparable"`
	NotComparable []string `json:"notComparable,omitempty"`
	// PolicyDrift names the policy fields that differ ("requestStorage:
	// metadata → full").
	PolicyDrift []string `json:"policyDrift,omitempty"`
	// Changes are the differing calls: removed ones in a's admission
	// order, then changed ones likewise, then added ones in b's.
	Changes []Call `json:"changes,omitempty"`
	// Calls is every aligned call: Changes, then the same ones in a's
	// admission order (for -show-calls).
	Calls []Call `json:"calls"`
}

// Equivalent says the two cassettes replay the same: comparable, no
// policy drift, no change. Timing never counts.
func (r Report) Equivalent() bool {
	return r.Comparable && len(r.PolicyDrift) == 0 && len(r.Changes) == 0
}

// Call is one call of the alignment.
type Call struct {
	Change             string `json:"change"` // one of the Change* values
	Key                string `json:"key"`
	Parent             string `json:"parent"`
	ContextFingerprint string `json:"contextFingerprint"`
	RequestFingerprint string `json:"requestFingerprint"`
	Occurrence         int    `json:"occurrence"`
	// From and To are the outcome kind and stop bucket on each side
	// ("result/completed", "start-error"); "" on the side without it.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
	// Parts names what differs in an outcome-changed call: "output",
	// "stop reason", "error name", "error code", "error message".
	Parts []string `json:"parts,omitempty"`
	// TimingDeltaMillis is b's duration minus a's (information only).
	TimingDeltaMillis int64 `json:"timingDeltaMillis,omitempty"`
}

// alignKey is the full stable identity Diff aligns on.
type alignKey struct {
	group
	occurrence int
}

func alignOf(it *Interaction) alignKey { return alignKey{it.group(), it.Occurrence} }

// Diff compares two cassettes call by call, aligned on (parent key,
// parent-context fingerprint, request fingerprint, occurrence). An
// occurrence group whose outcomes differ within one cassette, or a call
// whose context inheritance changed, makes them not safely comparable
// rather than aligned by guess.
func Diff(a, b *Cassette) Report {
	r := Report{Comparable: true, Calls: []Call{}}
	r.NotComparable = append(ambiguous(a, "a"), ambiguous(b, "b")...)
	r.NotComparable = append(r.NotComparable, inheritanceChanged(a, b)...)
	r.Comparable = len(r.NotComparable) == 0
	r.PolicyDrift = policyDrift(a.Policy, b.Policy)
	inB := map[alignKey]*Interaction{}
	for i := range b.Interactions {
		inB[alignOf(&b.Interactions[i])] = &b.Interactions[i]
	}
	inA := map[alignKey]bool{}
	var removed, changed, same, added []Call
	for i := range a.Interactions {
		x := &a.Interactions[i]
		inA[alignOf(x)] = true
		y := inB[alignOf(x)]
		c := compare(x, y)
		switch c.Change {
		case ChangeRemoved:
			removed = append(removed, c)
		case ChangeSame:
			same = append(same, c)
		default:
			changed = append(changed, c)
		}
	}
	for i := range b.Interactions {
		if y := &b.Interactions[i]; !inA[alignOf(y)] {
			added = append(added, compare(nil, y))
		}
	}
	r.Changes = append(append(removed, changed...), added...)
	r.Calls = append(append(append(r.Calls, removed...), changed...), added...)
	r.Calls = append(r.Calls, same...)
	return r
}

// compare aligns x (from a, or nil) with y (from b, or nil).
func compare(x, y *Interaction) Call {
	it := x
	if it == nil {
		it = y
	}
	c := Call{Key: it.Key, Parent: it.Parent, ContextFingerprint: it.ContextFingerprint,
		RequestFingerprint: it.RequestFingerprint, Occurrence: it.Occurrence}
	if x != nil {
		c.From = summary(x.Outcome)
	}
	if y != nil {
		c.To = summary(y.Outcome)
	}
	switch {
	case y == nil:
		c.Change = ChangeRemoved
	case x == nil:
		c.Change = ChangeAdded
	case x.Outcome.Kind != y.Outcome.Kind:
		c.Change = ChangeBoundary
	default:
		c.Parts = outcomeParts(x.Outcome, y.Outcome)
		c.Change = ChangeSame
		if len(c.Parts) > 0 {
			c.Change = ChangeOutcome
		}
	}
	if x != nil && y != nil {
		c.TimingDeltaMillis = y.Outcome.DurationMillis - x.Outcome.DurationMillis
	}
	return c
}

func summary(o Outcome) string {
	if b := o.bucket(); b != "" && o.Kind == OutcomeResult {
		return o.Kind + "/" + b
	}
	return o.Kind
}

// outcomeParts names what differs between two outcomes of one kind.
func outcomeParts(x, y Outcome) []string {
	var parts []string
	if x.Result != nil && y.Result != nil {
		xo, _ := canonical(x.Result.Output)
		yo, _ := canonical(y.Result.Output)
		if !bytes.Equal(xo, yo) {
			parts = append(parts, "output")
		}
		if x.Result.StopReason != y.Result.StopReason {
			parts = append(parts, "stop reason")
		}
	}
	if x.Error != nil && y.Error != nil {
		for _, p := range []struct {
			name string
			a, b string
		}{{"error name", x.Error.Name, y.Error.Name}, {"error code", x.Error.Code, y.Error.Code}, {"error message", x.Error.Message, y.Error.Message}} {
			if p.a != p.b {
				parts = append(parts, p.name)
			}
		}
	}
	return parts
}

// ambiguous names the occurrence groups of c whose outcomes differ.
func ambiguous(c *Cassette, side string) []string {
	first := map[group][]byte{}
	bad := map[group]string{}
	for i := range c.Interactions {
		it := &c.Interactions[i]
		o, _ := canonical(sameOutcome(it.Outcome))
		if f, ok := first[it.group()]; !ok {
			first[it.group()] = o
		} else if !bytes.Equal(f, o) && bad[it.group()] == "" {
			bad[it.group()] = fmt.Sprintf("%s: the occurrences of %s ended differently (an ambiguous group)", side, it.Key)
		}
	}
	return sortedValues(bad)
}

// inheritanceChanged names the requests made under one parent in both
// cassettes whose context inheritance differs.
func inheritanceChanged(a, b *Cassette) []string {
	type req struct{ parent, label, request string }
	inherits := map[req]bool{}
	for i := range a.Interactions {
		it := &a.Interactions[i]
		inherits[req{it.Parent, it.Label, it.RequestFingerprint}] = it.InheritsContext
	}
	bad := map[group]string{}
	for i := range b.Interactions {
		it := &b.Interactions[i]
		if was, ok := inherits[req{it.Parent, it.Label, it.RequestFingerprint}]; ok && was != it.InheritsContext {
			bad[it.group()] = fmt.Sprintf("the context inheritance of %s changed", it.Key)
		}
	}
	return sortedValues(bad)
}

func sortedValues(m map[group]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	sort.Strings(out)
	return out
}

func policyDrift(a, b Policy) []string {
	var out []string
	if a.RequestStorage != b.RequestStorage {
		out = append(out, fmt.Sprintf("requestStorage: %s → %s", a.RequestStorage, b.RequestStorage))
	}
	if a.RedactSecrets != b.RedactSecrets {
		out = append(out, fmt.Sprintf("redactSecrets: %t → %t", a.RedactSecrets, b.RedactSecrets))
	}
	if a.RedactionPatterns != b.RedactionPatterns || a.PatternsFingerprint != b.PatternsFingerprint {
		out = append(out, fmt.Sprintf("redactionPatterns: %d → %d patterns (or other ones)", a.RedactionPatterns, b.RedactionPatterns))
	}
	return out
}
