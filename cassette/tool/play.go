package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/acpsnap/acpsnap/cassette"
)

// Player serves the selected calls from a verified cassette and never runs
// their bodies. Call k (in start order) must be recorded call k, with the
// same path, tool and canonical arguments: an O(1) lookup by ordinal. The
// first difference, or a call beyond the recorded ones, is a
// *MismatchError (CASSETTE_MISMATCH) and poisons the player: every later
// selected call fails too, so no run is half tape, half real.
type Player struct {
	include *Include
	calls   []call
	file    string

	mu       sync.Mutex
	next     int // the next ordinal
	consumed int // calls served; always a prefix of calls
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
	cs, _ := calls(f.Frames)        // verified
	return &Player{include: inc, calls: cs, file: cassette.Display(file)}, nil
}

// Call returns the recorded value (or a *RecordedError) of a selected call
// without running body; unselected tools run body.
func (p *Player) Call(ctx context.Context, path, name string, args json.RawMessage, body Body) (json.RawMessage, error) {
	if !p.include.Match(name) {
		return body(ctx)
	}
	path = pathOf(path)
	canon, cerr := canonicalArgs(args)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil, errClosed
	}
	ord := p.next
	p.next++
	if p.poison != nil {
		return nil, &MismatchError{Ordinal: ord, Path: path, Tool: name, Cause: p.poison}
	}
	if reason := p.differs(ord, path, name, canon, cerr); reason != "" {
		p.poison = &MismatchError{Ordinal: ord, Path: path, Tool: name, Reason: reason}
		return nil, p.poison
	}
	c := &p.calls[ord]
	p.consumed++
	if c.res.Error != nil {
		return nil, &RecordedError{Message: c.res.Error.Message}
	}
	return c.res.Value, nil
}

// differs says how call ord differs from the record, or "".
func (p *Player) differs(ord int, path, name string, canon []byte, cerr error) string {
	if ord >= len(p.calls) {
		return fmt.Sprintf("an extra call: the cassette has %d", len(p.calls))
	}
	c := &p.calls[ord]
	switch {
	case c.Path != path:
		return fmt.Sprintf("path differs (recorded %s)", c.Path)
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
// record was served, in order, and nothing else was asked.
func (p *Player) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	var errs []error
	if p.poison != nil {
		errs = append(errs, p.poison)
	}
	if extra := p.next - len(p.calls); extra > 0 {
		errs = append(errs, fmt.Errorf("tool cassette: %s: %d extra call(s) beyond the %d recorded", p.file, extra, len(p.calls)))
	}
	if p.consumed < len(p.calls) {
		c := p.calls[p.consumed]
		errs = append(errs, fmt.Errorf("tool cassette: %s: %d recorded call(s) not consumed (the first: call %d (%s, %s))", p.file, len(p.calls)-p.consumed, c.Ordinal, c.Path, c.Tool))
	}
	return errors.Join(errs...)
}
