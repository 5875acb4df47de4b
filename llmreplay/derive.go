package llmreplay

import (
	"fmt"
	"io"
	"strings"

	"github.com/acpsnap/acpsnap/internal/sessionlog"
)

// UnterminatedError reports a model call whose chunks end without a finish
// chunk: the stream was cancelled or hung, so the log does not say how the
// call ended and the scenario needs a replay.override.json that replaces
// the entry. Derive returns it together with the script, whose entry Index
// holds the partial chunks as recorded.
type UnterminatedError struct {
	File  string // the session log
	Line  int    // line of the call's first assistant/chunk event
	Index int    // the call's entry in the derived script
	Turn  int
	Step  int
	// More lists the further unterminated calls of the same log, in order.
	More []UnterminatedError
}

func (e *UnterminatedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llmreplay: derive: %s:%d: model call %d (turn %d, step %d) ends without a finish chunk; "+
		"the scenario needs a replay.override.json that replaces entry %d (e.g. with a hang)", e.File, e.Line, e.Index+1, e.Turn, e.Step, e.Index)
	for _, m := range e.More {
		fmt.Fprintf(&b, "; also %s:%d, entry %d", m.File, m.Line, m.Index)
	}
	return b.String()
}

// indexes returns the script entries of e and of e.More.
func (e *UnterminatedError) indexes() []int {
	out := []int{e.Index}
	for _, m := range e.More {
		out = append(out, m.Index)
	}
	return out
}

// Derive derives the replay script of the session log r (SPEC §6.2): one
// entry per model call. It walks the assistant/chunk events, groups them by
// (turn, step) and closes a group at each finish chunk, so that a retry in
// the same step starts a new entry. A group closed by a finish with reason
// "error" and a code becomes a throw entry (the chunks before the finish,
// its error as message, its code); any other group becomes a chunks entry,
// finish included. Derive never yields accepted throws or hangs.
//
// A group without finish makes Derive return the script together with an
// *UnterminatedError. Name prefixes errors ("name:line: ...").
func Derive(r io.Reader, name string) (Script, error) {
	l, err := sessionlog.Read(r, name)
	if err != nil {
		return nil, fmt.Errorf("llmreplay: derive: %w", err)
	}
	return deriveLog(l)
}

// call is one model call being collected.
type call struct {
	turn, step, line int
	chunks           []Chunk
}

// deriveLog is Derive on a parsed log.
func deriveLog(l *sessionlog.Log) (Script, error) {
	s := Script{}
	var open *call
	var unterminated []UnterminatedError
	closeOpen := func() {
		unterminated = append(unterminated, UnterminatedError{File: l.Name, Line: open.line, Index: len(s), Turn: open.turn, Step: open.step})
		s = append(s, Entry{Kind: KindChunks, Chunks: open.chunks})
		open = nil
	}
	for _, ev := range l.Events {
		if ev.Type != "assistant/chunk" {
			continue
		}
		turn, step, c, err := chunkEvent(l.Name, ev)
		if err != nil {
			return nil, fmt.Errorf("llmreplay: derive: %w", err)
		}
		if open != nil && (open.turn != turn || open.step != step) {
			closeOpen()
		}
		if open == nil {
			open = &call{turn: turn, step: step, line: ev.Line}
		}
		open.chunks = append(open.chunks, c)
		if c.Type == Finish {
			s = append(s, entryOf(open.chunks))
			open = nil
		}
	}
	if open != nil {
		closeOpen()
	}
	if len(unterminated) > 0 {
		u := unterminated[0]
		u.More = unterminated[1:]
		return s, &u
	}
	return s, nil
}

// entryOf turns the chunks of a call closed by a finish into its entry.
func entryOf(chunks []Chunk) Entry {
	last := chunks[len(chunks)-1]
	if last.Reason == FinishError && last.Code != "" {
		return Entry{Kind: KindThrow, Chunks: chunks[:len(chunks)-1], Message: last.Error, Code: last.Code}
	}
	return Entry{Kind: KindChunks, Chunks: chunks}
}

// chunkEvent decodes the data {turn, step, chunk} of an assistant/chunk
// event strictly; errors read "name:line: $.data.chunk.type: ...".
func chunkEvent(name string, ev sessionlog.Event) (turn, step int, c Chunk, err error) {
	d := &doc{name: name, data: ev.Data, line0: ev.Line - 1}
	v := value{raw: ev.Data, path: "$.data"}
	if len(v.raw) == 0 {
		return 0, 0, c, d.errorf(0, v.path, "missing")
	}
	m, err := d.members(v, "an assistant/chunk data")
	if err == nil {
		err = d.checkMembers(v, m, []string{"turn", "step", "chunk"}, nil)
	}
	if err == nil {
		turn, err = d.positive(m["turn"])
	}
	if err == nil {
		step, err = d.positive(m["step"])
	}
	if err == nil {
		c, err = d.chunk(m["chunk"])
	}
	return turn, step, c, err
}

// positive decodes an integer of at least 1 (turns and steps count from 1).
func (d *doc) positive(v value) (int, error) {
	n, err := d.integer(v)
	if err == nil && n < 1 {
		err = d.errorf(v.off, v.path, "%d: numbers start at 1", n)
	}
	return n, err
}
