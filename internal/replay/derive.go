package replay

import (
	"fmt"
	"io"
	"strings"

	"github.com/acpsnap/acpsnap/internal/strictjson"
	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// UnterminatedError reports a model call that ends without a finish chunk:
// the stream was cancelled or hung — possibly before its first chunk — so
// the log does not say how the call ended and the scenario needs a
// replay.override.json that replaces the entry. Derive returns it together
// with the script, whose entry Index holds the partial chunks as recorded
// (none for a call that logged no chunk).
type UnterminatedError struct {
	File string // the session log
	// Line is the line of the call's first assistant/chunk event, or of its
	// request/header when the call logged no chunk.
	Line  int
	Index int // the call's entry in the derived script
	Turn  int
	Step  int
	// AbandonedRetry marks the retry of a retryable provider error that the
	// agent never made (cancelled during its retry pause): the log has no
	// call for it, but a replay makes it.
	AbandonedRetry bool
	// More lists the further unterminated calls of the same log, in order.
	More []UnterminatedError
}

func (e *UnterminatedError) Error() string {
	var b strings.Builder
	if e.AbandonedRetry {
		fmt.Fprintf(&b, "llmreplay: derive: %s:%d: model call %d (turn %d, step %d) is the retry the agent abandoned when cancelled in its retry pause; "+
			"a replay makes it, so the scenario needs a replay.override.json that supplies entry %d (e.g. a hang)", e.File, e.Line, e.Index+1, e.Turn, e.Step, e.Index)
	} else {
		fmt.Fprintf(&b, "llmreplay: derive: %s:%d: model call %d (turn %d, step %d) ends without a finish chunk; "+
			"the scenario needs a replay.override.json that replaces entry %d (e.g. with a hang)", e.File, e.Line, e.Index+1, e.Turn, e.Step, e.Index)
	}
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

// Derive derives the replay script of the session log r (docs/format.md, "Derivation"): one
// entry per model call. It walks the assistant/chunk events, groups them by
// (turn, step) and closes a group at each finish chunk, so that a retry in
// the same step starts a new entry. A group closed by a finish with reason
// "error" and a code becomes a throw entry (the chunks before the finish,
// its error as message, its code); any other group becomes a chunks entry,
// finish included. Derive never yields accepted throws or hangs.
//
// A request/header event with a turn and a step opens a model call of that
// step, so that a call that logged no chunk still takes its entry (with no
// chunks). A group without finish, or such a call, makes Derive return the
// script together with an *UnterminatedError. Name prefixes errors
// ("name:line: ...").
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
	chunks           []model.Chunk
}

// deriver is the state of one derivation.
type deriver struct {
	name   string
	script Script
	// header is a call opened by a request/header that has logged no chunk
	// yet; open is a chunk group without finish yet. At most one is set.
	header, open *call
	unterminated []UnterminatedError
	// step is the step whose request/header came last: its entries are
	// checked for an abandoned retry when the step ends.
	step *stepCalls
}

// stepCalls follows the entries one request/header's step derived.
type stepCalls struct {
	turn, step, line int
	first            int // index of its first entry
}

// deriveLog is Derive on a parsed log: a single state machine over its
// events.
func deriveLog(l *sessionlog.Log) (Script, error) {
	d := &deriver{name: l.Name, script: Script{}}
	for _, ev := range l.Events {
		var err error
		switch ev.Type {
		case "request/header":
			err = d.requestHeader(ev)
		case "assistant/chunk":
			err = d.chunk(ev)
		case "step/end", "turn/end":
			err = d.boundary(ev)
		}
		if err != nil {
			return nil, fmt.Errorf("llmreplay: derive: %w", err)
		}
	}
	d.closeOpen()
	d.closeHeader()
	d.endStep()
	if len(d.unterminated) > 0 {
		u := d.unterminated[0]
		u.More = d.unterminated[1:]
		return d.script, &u
	}
	return d.script, nil
}

// requestHeader opens the call of the header's step. A header without turn
// and step (not the reference agent's) is ignored.
func (d *deriver) requestHeader(ev sessionlog.Event) error {
	n, err := numbersOf(d.name, ev, "a request/header data", "turn", "step")
	if err != nil || n == nil {
		return err
	}
	d.closeOpen()
	d.closeHeader()
	d.endStep()
	d.header = &call{turn: n[0], step: n[1], line: ev.Line}
	d.step = &stepCalls{turn: n[0], step: n[1], line: ev.Line, first: len(d.script)}
	return nil
}

// endStep checks the step that ends for an abandoned retry: a step whose
// only call failed with a retryable error (RATE_LIMIT, UNAVAILABLE) was
// cancelled during the agent's pause before its one retry. A replay makes
// that retry, and the log has no entry for it, so it is an unterminated
// call (no chunks) the scenario must supply by override.
func (d *deriver) endStep() {
	st := d.step
	d.step = nil
	if st == nil || len(d.script)-st.first != 1 {
		return
	}
	if e := d.script[st.first]; e.Kind != KindThrow || !(&model.ProviderError{Code: e.Code}).Retryable() {
		return
	}
	d.unterminatedCall(&call{turn: st.turn, step: st.step, line: st.line})
	d.unterminated[len(d.unterminated)-1].AbandonedRetry = true
}

// chunk adds one assistant/chunk event to its group: the group of the
// same step left open, the call its step's header opened, or a new one.
func (d *deriver) chunk(ev sessionlog.Event) error {
	turn, step, c, err := chunkEvent(d.name, ev)
	if err != nil {
		return err
	}
	if d.open != nil && (d.open.turn != turn || d.open.step != step) {
		d.closeOpen()
	}
	if d.header != nil && (d.header.turn != turn || d.header.step != step) {
		d.closeHeader()
	}
	d.header = nil // the call has its first chunk
	if d.open == nil {
		d.open = &call{turn: turn, step: step, line: ev.Line}
	}
	d.open.chunks = append(d.open.chunks, c)
	if c.Type == model.Finish {
		d.script = append(d.script, entryOf(d.open.chunks))
		d.open = nil
	}
	return nil
}

// boundary handles step/end and turn/end: the end of the header's step or
// turn ends a call that has logged no chunk. Other events are not read.
func (d *deriver) boundary(ev sessionlog.Event) error {
	if d.header == nil && d.step == nil {
		return nil
	}
	keys := []string{"turn", "step"}
	if ev.Type == "turn/end" {
		keys = keys[:1]
	}
	n, err := numbersOf(d.name, ev, "a "+ev.Type+" data", keys...)
	if err != nil || n == nil {
		return err
	}
	if h := d.header; h != nil && n[0] == h.turn && (len(n) == 1 || n[1] == h.step) {
		d.closeHeader()
	}
	if st := d.step; st != nil && n[0] == st.turn && (len(n) == 1 || n[1] == st.step) {
		d.closeOpen()
		d.endStep()
	}
	return nil
}

// closeOpen ends the open group, if any, as an unterminated call with its
// partial chunks.
func (d *deriver) closeOpen() {
	if d.open != nil {
		d.unterminatedCall(d.open)
		d.open = nil
	}
}

// closeHeader ends the call opened by a request/header, if any, as an
// unterminated call without chunks.
func (d *deriver) closeHeader() {
	if d.header != nil {
		d.unterminatedCall(d.header)
		d.header = nil
	}
}

func (d *deriver) unterminatedCall(c *call) {
	d.unterminated = append(d.unterminated, UnterminatedError{File: d.name, Line: c.line, Index: len(d.script), Turn: c.turn, Step: c.step})
	chunks := c.chunks
	if chunks == nil {
		chunks = []model.Chunk{}
	}
	d.script = append(d.script, Entry{Kind: KindChunks, Chunks: chunks})
}

// entryOf turns the chunks of a call closed by a finish into its entry.
func entryOf(chunks []model.Chunk) Entry {
	last := chunks[len(chunks)-1]
	if last.Reason == model.FinishError && last.Code != "" {
		return Entry{Kind: KindThrow, Chunks: chunks[:len(chunks)-1], Message: last.Error, Code: last.Code}
	}
	return Entry{Kind: KindChunks, Chunks: chunks}
}

// chunkEvent decodes the data {turn, step, chunk} of an assistant/chunk
// event strictly; errors read "name:line: $.data.chunk.type: ...".
func chunkEvent(name string, ev sessionlog.Event) (turn, step int, c model.Chunk, err error) {
	d, v, err := parseData(name, ev)
	if err != nil {
		return 0, 0, c, err
	}
	m, err := d.Members(v, "an assistant/chunk data")
	if err == nil {
		err = d.CheckMembers(v, m, []string{"turn", "step", "chunk"}, nil)
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

// numbersOf decodes the members keys of ev's data, each an integer of at
// least 1; other members are not read. It returns nil when the data has
// none of them (a log that does not say), and an error when it has only
// some or one is not such a number.
func numbersOf(name string, ev sessionlog.Event, what string, keys ...string) ([]int, error) {
	if len(ev.Data) == 0 {
		return nil, nil
	}
	d, v, err := parseData(name, ev)
	if err != nil {
		return nil, err
	}
	m, err := d.Members(v, what)
	if err != nil {
		return nil, err
	}
	present := 0
	for _, k := range keys {
		if _, ok := m[k]; ok {
			present++
		}
	}
	if present == 0 {
		return nil, nil
	}
	out := make([]int, len(keys))
	for i, k := range keys {
		mv, ok := m[k]
		if !ok {
			return nil, d.Errorf(v.Off, v.Path+"."+k, "missing")
		}
		if out[i], err = d.positive(mv); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// positive decodes an integer of at least 1 (turns and steps count from 1).
func (d *doc) positive(v strictjson.Value) (int, error) {
	n, err := d.Int(v)
	if err == nil && n < 1 {
		err = d.Errorf(v.Off, v.Path, "%d: numbers start at 1", n)
	}
	return n, err
}
