package subagent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Player replays a subagent cassette: Call returns a recorded outcome and
// never runs the child. It is safe for concurrent use.
type Player struct {
	mu       sync.Mutex
	s        settings
	name     string
	its      []Interaction // by admission
	consumed []bool
	groups   map[group][]int // indices into its, by occurrence
	parents  map[string][]int
	closed   bool
}

// Replay loads and verifies the cassette at path and returns its Player.
// It refuses, before any call, a cassette that is damaged, an occurrence
// group whose recorded outcomes differ (unless DuplicatePolicy
// "sequence"), and a result that redaction rewrote (unless
// AllowRedactedReplay).
func Replay(path string, opts Options) (*Player, error) {
	s, err := opts.settings()
	if err != nil {
		return nil, err
	}
	c, err := Load(path)
	if err != nil {
		return nil, err
	}
	return newPlayer(c, s)
}

func newPlayer(c *Cassette, s settings) (*Player, error) {
	p := &Player{s: s, name: c.Name, its: c.Interactions, consumed: make([]bool, len(c.Interactions)),
		groups: map[group][]int{}, parents: map[string][]int{}}
	for i := range p.its {
		it := &p.its[i]
		if it.Redacted && it.Outcome.Kind == OutcomeResult && !s.allowRedacted {
			return nil, fmt.Errorf("subagent cassette: %s: %s: its result was redacted; replaying it would serve %s as data (allowRedactedReplay: true accepts that)", c.Name, Escape(it.Key), Redacted)
		}
		p.groups[it.group()] = append(p.groups[it.group()], i)
		p.parents[it.Parent] = append(p.parents[it.Parent], i)
	}
	if s.duplicates == PolicyReject {
		if err := p.checkDuplicates(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// checkDuplicates refuses a group whose occurrences ended differently.
func (p *Player) checkDuplicates() error {
	for _, idx := range p.groups {
		first, _ := canonical(sameOutcome(p.its[idx[0]].Outcome))
		for _, i := range idx[1:] {
			if o, _ := canonical(sameOutcome(p.its[i].Outcome)); !bytes.Equal(o, first) {
				return fmt.Errorf("subagent cassette: %s: %s: identical requests were recorded with different outcomes (duplicatePolicy: sequence replays them in occurrence order)", p.name, Escape(p.its[i].Key))
			}
		}
	}
	return nil
}

// sameOutcome is what two outcomes must share to count as the same:
// everything but timing.
func sameOutcome(o Outcome) Outcome {
	o.StartMillis, o.DurationMillis = 0, 0
	return o
}

// Diagnose analyses a call as Call would, without consuming anything.
func (p *Player) Diagnose(parent Parent, req Request) (Diagnostic, error) {
	id, err := identify(parent, req)
	if err != nil {
		return Diagnostic{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	d, _ := p.analyse(id)
	return d, nil
}

// analyse matches id; it returns the index of the match or -1. The
// caller holds mu; nothing is changed.
func (p *Player) analyse(id identity) (Diagnostic, int) {
	d := Diagnostic{Parent: id.parent, Label: id.label, ContextFingerprint: id.context, RequestFingerprint: id.request}
	if idx, ok := p.groups[id.group()]; ok {
		for _, i := range idx {
			if !p.consumed[i] {
				c := candidateOf(&p.its[i], false)
				d.Match = &c
				return d, i
			}
		}
		d.Reason = ReasonGroupExhausted
	}
	sameContext, sameRequest := false, false
	for _, i := range p.parents[id.parent] {
		it := &p.its[i]
		d.Candidates = append(d.Candidates, candidateOf(it, p.consumed[i]))
		sameContext = sameContext || it.ContextFingerprint == id.context
		sameRequest = sameRequest || it.RequestFingerprint == id.request
	}
	switch {
	case d.Reason != "":
	case len(d.Candidates) == 0:
		d.Reason = ReasonParentNotFound
	case sameRequest:
		d.Reason = ReasonParentContextChanged
	case sameContext:
		d.Reason = ReasonRequestChanged
	default:
		d.Reason = ReasonParentAndRequestChanged
	}
	return d, -1
}

// Call replays the recorded outcome of the call (parent, req): the child
// is never run (it may be nil). A miss is a *MismatchError and changes
// nothing, so a corrected call afterwards still matches. With Timing
// "recorded" the call first waits the recorded delays divided by Speed; a
// ctx done before the recorded start yields an AbortError, after it the
// aborted result.
func (p *Player) Call(ctx context.Context, parent Parent, req Request, child Child) (Result, error) {
	id, err := identify(parent, req)
	if err != nil {
		return Result{}, err
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return Result{}, errors.New("subagent cassette: call after Close")
	}
	d, i := p.analyse(id)
	if i >= 0 {
		p.consumed[i] = true
	}
	p.mu.Unlock()
	if i < 0 {
		return Result{}, &MismatchError{Diagnostic: d}
	}
	return p.serve(ctx, p.its[i].Outcome)
}

// serve yields o, waiting its recorded delays when asked.
func (p *Player) serve(ctx context.Context, o Outcome) (Result, error) {
	abort := &RecordedError{Name: "AbortError", Message: "aborted before the replayed child started"}
	if ctx.Err() != nil {
		return Result{}, abort
	}
	if p.s.timing == TimingInstant {
		return o.yield()
	}
	start := o.StartMillis
	if start < 0 {
		start = o.DurationMillis // it never ran: the whole wait is before the start
	}
	if p.wait(ctx, start) != nil {
		return Result{}, abort
	}
	if o.StartMillis >= 0 && p.wait(ctx, o.DurationMillis-start) != nil {
		return abortedResult(), nil
	}
	return o.yield()
}

func (p *Player) wait(ctx context.Context, millis int64) error {
	if millis <= 0 {
		return ctx.Err()
	}
	d := time.Duration(float64(millis) * float64(time.Millisecond) / p.s.speed)
	if err := p.s.sleep(ctx, d); err != nil {
		return err
	}
	return ctx.Err()
}

// Unconsumed returns the keys of the interactions not replayed yet, in
// admission order, leaving out those under a replayed call: a replayed
// child never runs, so its own children cannot be asked for.
func (p *Player) Unconsumed() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	replayed := map[string]bool{}
	var out []string
	for i := range p.its {
		it := &p.its[i]
		switch {
		case p.consumed[i] || replayed[it.Parent]:
			replayed[it.Key] = true
		default:
			out = append(out, it.Key)
		}
	}
	return out
}

// Close ends the replay. With AssertConsumed (the default) it fails while
// recorded interactions were not replayed (see Unconsumed).
func (p *Player) Close() error {
	left := p.Unconsumed()
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	if !p.s.assertConsumed || len(left) == 0 {
		return nil
	}
	shown := left
	if len(shown) > 5 {
		shown = shown[:5]
	}
	for i := range shown {
		shown[i] = Escape(shown[i])
	}
	return fmt.Errorf("subagent cassette: %s: %d recorded calls were not replayed: %s", p.name, len(left), strings.Join(shown, ", "))
}
