package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/acpsnap/acpsnap/internal/cassette"
	"github.com/acpsnap/acpsnap/internal/normalize"
)

// Player serves the selected calls from a verified cassette and never runs
// their bodies. Call k at a path (in start order) must be recorded call k
// at that path, with the same tool and canonical arguments: an O(1)
// lookup by path and ordinal. The
// first difference, or a call beyond the recorded ones, is a
// *MismatchError (CASSETTE_MISMATCH) and poisons the player: every later
// selected call fails too, so no run is half tape, half real.
type Player struct {
	include *Include
	tape    tape
	file    string
	paths   *normalize.Paths

	mu       sync.Mutex
	next     map[string]int // the next ordinal at each path
	consumed map[string]int // calls served at each path (a prefix of its calls)
	poison   *MismatchError
	closed   bool
}

// NewPlayer verifies file whole and returns its player. include nil means
// the cassette's own; otherwise it must equal the recorded include (a
// different selection would replay a different run).
func NewPlayer(file string, include []string) (*Player, error) {
	f, err := cassette.ReadFile(file, Kind())
	if err != nil {
		return nil, err
	}
	var p policy
	_ = cassette.Decode(f.Policy, &p) // verified
	if include != nil && !slices.Equal(include, p.Include) {
		return nil, fmt.Errorf("tool cassette: %s: include %q differs from the recorded %q (record again)", cassette.Display(file), include, p.Include)
	}
	inc, _ := NewInclude(p.Include) // verified
	tp, _ := calls(f.Frames)        // verified
	return &Player{include: inc, tape: tp, file: cassette.Display(file), next: map[string]int{}, consumed: map[string]int{}}, nil
}

// Call returns the recorded value (or a *RecordedError) of a selected call
// without running body; unselected tools run body.
func (p *Player) Call(ctx context.Context, path, name string, args json.RawMessage, body Body) (json.RawMessage, error) {
	if !p.include.Match(name) {
		return body(ctx)
	}
	path = pathOf(path)
	canon, cerr := canonicalArgs(p.paths, args)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errClosed
	}
	ord := p.next[path]
	p.next[path]++
	if p.poison != nil {
		return nil, &MismatchError{Ordinal: ord, Path: path, Tool: name, Cause: p.poison}
	}
	if reason := p.differs(ord, path, name, canon, cerr); reason != "" {
		p.poison = &MismatchError{Ordinal: ord, Path: path, Tool: name, Reason: reason}
		return nil, p.poison
	}
	c := &p.tape.byPath[path][ord]
	p.consumed[path]++
	if c.res.Error != nil {
		return nil, &RecordedError{Message: expandText(p.paths, c.res.Error.Message)}
	}
	return expand(p.paths, c.res.Value)
}

// differs says how call ord at path differs from the record, or "".
func (p *Player) differs(ord int, path, name string, canon []byte, cerr error) string {
	recorded := p.tape.byPath[path]
	if ord >= len(recorded) {
		return fmt.Sprintf("an extra call: the cassette has %d at this path", len(recorded))
	}
	c := &recorded[ord]
	switch {
	case c.Tool != name:
		return fmt.Sprintf("tool differs (recorded %s)", c.Tool)
	case cerr != nil:
		return "arguments are not JSON"
	case !bytes.Equal(c.Args, canon):
		return fmt.Sprintf("arguments differ (%s, recorded %s)", fingerprint(canon), fingerprint(c.Args))
	}
	return ""
}

// Close reports what makes the replay fail: the first mismatch, calls
// beyond the cassette and recorded calls never consumed. nil means every
// record was served, in order at its path, and nothing else was asked.
func (p *Player) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	var errs []error
	if p.poison != nil {
		errs = append(errs, p.poison)
	}
	extra, recorded := 0, 0
	for path, n := range p.next {
		extra += max(0, n-len(p.tape.byPath[path]))
	}
	var first *call
	left := 0
	for _, path := range p.tape.paths {
		cs := p.tape.byPath[path]
		recorded += len(cs)
		if k := p.consumed[path]; k < len(cs) {
			left += len(cs) - k
			if first == nil {
				first = &cs[k]
			}
		}
	}
	if extra > 0 {
		errs = append(errs, fmt.Errorf("tool cassette: %s: %d extra call(s) beyond the %d recorded", p.file, extra, recorded))
	}
	if first != nil {
		errs = append(errs, fmt.Errorf("tool cassette: %s: %d recorded call(s) not consumed (the first: call %d (%s, %s))", p.file, left, first.Ordinal, first.Path, first.Tool))
	}
	return errors.Join(errs...)
}
