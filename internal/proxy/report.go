package proxy

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/acpsnap/acpsnap/internal/httplog"
)

// Report is what a run through the proxy did. It is final after Close.
type Report struct {
	// Exchanges are the calls as the agent saw them, normalized: requests
	// as sent, responses as served before Expand (overrides applied; a
	// drift's 400 included). Record: in arrival order. Replay: in recorded
	// call order, then the drifted requests in arrival order, so that a
	// clean replay composes the same log as the recording. Compose them.
	Exchanges []httplog.Exchange
	// Drifts (Replay) are the requests that matched no recorded exchange:
	// the request changed; only re-recording accepts it. They are the
	// first MaxDrifts of them, each with its nearest recorded call;
	// MoreDrifts counts the others.
	Drifts     []Drift
	MoreDrifts int
	// Unconsumed (Replay) are the recorded calls never requested, from 1.
	Unconsumed []int
	// Served (Replay) counts the recorded exchanges served.
	Served int
	// Errors are failures that are not drifts: an upstream that could not
	// be reached, a payload Normalize refused.
	Errors []string
	// Refused counts the requests past MaxCalls, the run's cap on model
	// calls (Config.MaxCalls), refused unanswered by the model.
	Refused, MaxCalls int
}

// MaxDrifts is how many drifts of a run the proxy describes (each with its
// nearest recorded call); past it, drifts are only counted.
const MaxDrifts = 10

// maxListed bounds the call numbers a message lists.
const maxListed = 20

// Report returns the report so far.
func (p *Proxy) Report() Report {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := Report{Drifts: append([]Drift(nil), p.drifts...), MoreDrifts: p.moreDrifts, Served: p.served,
		Errors: append([]string(nil), p.errs...), Refused: p.refused, MaxCalls: p.cfg.maxCalls()}
	for _, xs := range [][]*httplog.Exchange{p.kept, p.extra} {
		for _, x := range xs {
			if x != nil {
				r.Exchanges = append(r.Exchanges, *x)
			}
		}
	}
	for i, c := range p.consumed {
		if !c {
			r.Unconsumed = append(r.Unconsumed, i+1)
		}
	}
	return r
}

// RequestDrift reports whether a request changed: a run with a drift can
// only be accepted by re-recording, never by refreshing the responses.
func (r Report) RequestDrift() bool { return len(r.Drifts) > 0 }

// Err describes the drifts, unconsumed calls, errors and refused calls;
// nil when the run was clean. Its length is bounded whatever the agent
// did: MaxDrifts drifts, the other drifts and the calls counted, errors
// alike folded into one line. It wraps ErrTooManyCalls when calls were
// refused.
func (r Report) Err() error {
	var msgs []string
	if r.Refused > 0 {
		msgs = append(msgs, fmt.Sprintf("the agent made %d model calls, more than the cap of %d: the %d past it were refused, not forwarded", r.MaxCalls+r.Refused, r.MaxCalls, r.Refused))
	}
	for _, d := range r.Drifts {
		msgs = append(msgs, d.String())
	}
	if r.MoreDrifts > 0 {
		msgs = append(msgs, fmt.Sprintf("and %d more request drifts", r.MoreDrifts))
	}
	if len(r.Unconsumed) > 0 {
		msgs = append(msgs, fmt.Sprintf("recorded calls never requested: %s (the agent made fewer model calls; re-record)", joinInts(r.Unconsumed)))
	}
	msgs = append(msgs, summarize(r.Errors)...)
	if len(msgs) == 0 {
		return nil
	}
	return &reportError{msg: "proxy: " + strings.Join(msgs, "\n"), capped: r.Refused > 0}
}

// reportError is Report.Err's error: its message, and whether calls went
// past the cap (errors.Is ErrTooManyCalls).
type reportError struct {
	msg    string
	capped bool
}

func (e *reportError) Error() string        { return e.msg }
func (e *reportError) Is(target error) bool { return e.capped && target == ErrTooManyCalls }

// joinInts lists ns, the first maxListed of them and how many more.
func joinInts(ns []int) string {
	s := make([]string, 0, min(len(ns), maxListed))
	for _, n := range ns[:min(len(ns), maxListed)] {
		s = append(s, fmt.Sprint(n))
	}
	if len(ns) > maxListed {
		return strings.Join(s, ", ") + fmt.Sprintf(" and %d more", len(ns)-maxListed)
	}
	return strings.Join(s, ", ")
}

// callError is the form of a per-call error: "call 3: msg", "request 4: msg".
var callError = regexp.MustCompile(`^(call|request) (\d+): (?s:(.*))$`)

// summarize folds per-call errors with the same message into one line
// ("calls 1, 2, 3 and 497 more: msg"), in the order each message first
// came: 500 calls that failed alike are one line, not 500.
func summarize(errs []string) []string {
	type group struct {
		kind, msg string
		calls     []string
	}
	var order []*group
	by := map[string]*group{}
	for _, e := range errs {
		m := callError.FindStringSubmatch(e)
		if m == nil {
			order = append(order, &group{msg: e})
			continue
		}
		key := m[1] + "\x00" + m[3]
		if g := by[key]; g != nil {
			g.calls = append(g.calls, m[2])
			continue
		}
		g := &group{kind: m[1], msg: m[3], calls: []string{m[2]}}
		by[key] = g
		order = append(order, g)
	}
	out := make([]string, len(order))
	for i, g := range order {
		switch {
		case len(g.calls) == 0:
			out[i] = g.msg
		case len(g.calls) == 1:
			out[i] = g.kind + " " + g.calls[0] + ": " + g.msg
		case len(g.calls) <= 3:
			out[i] = g.kind + "s " + strings.Join(g.calls, ", ") + ": " + g.msg
		default:
			out[i] = fmt.Sprintf("%ss %s and %d more: %s", g.kind, strings.Join(g.calls[:3], ", "), len(g.calls)-3, g.msg)
		}
	}
	return out
}
