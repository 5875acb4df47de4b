package proxy

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/acpsnap/acpsnap/llmreplay/httplog"
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
	// the request changed; only re-recording accepts it.
	Drifts []Drift
	// Unconsumed (Replay) are the recorded calls never requested, from 1.
	Unconsumed []int
	// Served (Replay) counts the recorded exchanges served.
	Served int
	// Errors are failures that are not drifts: an upstream that could not
	// be reached, a payload Normalize refused.
	Errors []string
}

// Report returns the report so far.
func (p *Proxy) Report() Report {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := Report{Drifts: append([]Drift(nil), p.drifts...), Served: p.served, Errors: append([]string(nil), p.errs...)}
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

// Err describes every drift, unconsumed call and error; nil when the run
// was clean.
func (r Report) Err() error {
	var msgs []string
	for _, d := range r.Drifts {
		msgs = append(msgs, d.String())
	}
	if len(r.Unconsumed) > 0 {
		msgs = append(msgs, fmt.Sprintf("recorded calls never requested: %s (the agent made fewer model calls; re-record)", joinInts(r.Unconsumed)))
	}
	msgs = append(msgs, summarize(r.Errors)...)
	if len(msgs) == 0 {
		return nil
	}
	return errors.New("proxy: " + strings.Join(msgs, "\n"))
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = fmt.Sprint(n)
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
