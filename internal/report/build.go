package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/acpsnap/acpsnap/internal/conformance"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// Source is what a transcript is built from: the client script and one
// normalized side of a scenario (its fixtures, or what a run produced).
type Source struct {
	Name   string
	Input  *scenario.Input
	Stdout []byte
	Logs   [][]byte // session.jsonl, then the child logs in order
	// LogNames label the logs and errors; nil: scenario.LogName(i).
	LogNames []string
	// StdoutName labels stdout errors; "": stdout.expected.jsonl.
	StdoutName string
	// Pins are the corpus's pins, which a composed log refers to; nil: a
	// composed log that refers to a pin is an error.
	Pins *httplog.Pins
}

// builder is the state of one pass over stdout: the turns of the client
// script, the turn the agent is answering now, and every tool call by id.
type builder struct {
	in    *scenario.Input
	turns []Turn
	// reqs are the client's requests by id, one list per agent process
	// (restartAgent starts the next; the SDK numbers each one's from 1).
	reqs   [][]request
	seg    int  // the agent process whose answers are being read
	lastID int  // the last id it answered
	brk    bool // an answer came: the next chunk starts a new item
	errs   []string
	cur    int
	tools  map[string]*Tool
	asked  int // permission requests seen
}

// Build builds the transcript of src: the turns from stdout (prompts from
// the client script), subagents from the child logs, model calls from the
// logs.
func Build(src Source) (*Transcript, error) {
	b := newBuilder(src.Input)
	name := src.StdoutName
	if name == "" {
		name = scenario.StdoutFile
	}
	err := strictjson.Each(bytes.NewReader(src.Stdout), func(n int, line []byte) error {
		if len(bytes.TrimSpace(line)) == 0 {
			return nil
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			return fmt.Errorf("%s:%d: %v", name, n, err)
		}
		b.message(m, line)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	t := &Transcript{Name: src.Name, Turns: b.turns, Errors: b.errs}
	if err := b.logs(t, src); err != nil {
		return nil, fmt.Errorf("transcript: %w", err)
	}
	for i := range t.Turns {
		t.Turns[i].Items = coalesce(t.Turns[i].Items)
	}
	return t, nil
}

// request is one request the client script sends through the SDK: its
// op, and the turn it opens (-1: not a prompt).
type request struct {
	op   string
	turn int
}

// unnumbered are the steps that send no request of the SDK's numbering:
// waits, notifications, a cancel, raw requests (ids of their own) and a
// restart. Every other op sends one.
var unnumbered = map[string]bool{
	scenario.OpCancel: true, scenario.OpWaitForFile: true, scenario.OpWaitForTurnStart: true,
	scenario.OpWaitForTurnEnd: true, scenario.OpWaitForSubagentTurnEnd: true, scenario.OpWaitForUpdate: true,
	scenario.OpNotify: true, scenario.OpRequest: true, scenario.OpRequestExpectError: true, scenario.OpRestartAgent: true,
}

func newBuilder(in *scenario.Input) *builder {
	b := &builder{in: in, reqs: [][]request{nil}, tools: map[string]*Tool{}}
	if in == nil {
		return b
	}
	for _, s := range in.Steps {
		if s.Op == scenario.OpRestartAgent {
			b.reqs = append(b.reqs, nil)
		}
		if unnumbered[s.Op] {
			continue
		}
		r := request{op: s.Op, turn: -1}
		if text, ok := promptText(s); ok {
			r.turn = len(b.turns)
			b.turns = append(b.turns, Turn{Prompt: text})
		}
		b.reqs[len(b.reqs)-1] = append(b.reqs[len(b.reqs)-1], r)
	}
	return b
}

// lookup is the request an answer with the SDK id id answers: an id no
// higher than the last one means the agent was restarted.
func (b *builder) lookup(id int) (request, bool) {
	if id <= b.lastID && b.seg+1 < len(b.reqs) {
		b.seg++
	}
	b.lastID = id
	if id < 1 || id > len(b.reqs[b.seg]) {
		return request{}, false
	}
	return b.reqs[b.seg][id-1], true
}

// promptText is the text a prompting step sends, content blocks other than
// text shown as "[kind]".
func promptText(s scenario.Step) (string, bool) {
	switch s.Op {
	case scenario.OpPrompt, scenario.OpPromptExpectError, scenario.OpPromptAndCancel:
		return s.Text, true
	case scenario.OpPromptContent:
		var blocks []block
		_ = json.Unmarshal(s.Content, &blocks)
		return blocksText(blocks), true
	}
	return "", false
}

// block is an ACP content block, as far as a transcript reads one.
type block struct {
	Type     string          `json:"type"`
	Text     string          `json:"text"`
	URI      string          `json:"uri"`
	Resource json.RawMessage `json:"resource"`
}

func blocksText(bs []block) string {
	var parts []string
	for _, b := range bs {
		parts = append(parts, b.text())
	}
	return strings.Join(parts, "\n")
}

func (b block) text() string {
	switch {
	case b.Type == "text":
		return b.Text
	case b.URI != "":
		return "[" + b.Type + " " + b.URI + "]"
	}
	var r struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(b.Resource, &r)
	if r.URI != "" {
		return "[" + b.Type + " " + r.URI + "]"
	}
	return "[" + b.Type + "]"
}

// message is one JSON-RPC message of the agent's stdout.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// message takes one message (line, decoded as m).
func (b *builder) message(m message, line []byte) {
	switch {
	case m.Method == conformance.UpdateMethod:
		if n, ok := conformance.ParseUpdate(line); ok {
			b.update(n)
		}
	case m.Method == "session/request_permission":
		b.permission(m.Params)
	case m.Method == "" && m.ID != nil:
		b.answer(m)
	}
}

// answer takes the agent's answer to a client request: a prompt's stop
// reason or error ends its turn.
func (b *builder) answer(m message) {
	var id int
	if json.Unmarshal(m.ID, &id) != nil {
		return
	}
	b.brk = true
	req, ok := b.lookup(id)
	if !ok {
		return
	}
	if req.turn < 0 {
		if m.Error != nil {
			b.errs = append(b.errs, req.op+": "+m.errorText())
		}
		return
	}
	t := &b.turns[req.turn]
	if m.Error != nil {
		t.Error = m.errorText()
	}
	var r struct {
		StopReason string `json:"stopReason"`
	}
	_ = json.Unmarshal(m.Result, &r)
	t.Stop = r.StopReason
	for b.cur < len(b.turns) && (b.turns[b.cur].Stop != "" || b.turns[b.cur].Error != "") {
		b.cur++
	}
}

// errorText is an error answer as one line: message, code, data.
func (m message) errorText() string {
	s := fmt.Sprintf("%s (code %d)", m.Error.Message, m.Error.Code)
	if len(m.Error.Data) > 0 && string(m.Error.Data) != "null" {
		s += ": " + compact(m.Error.Data)
	}
	return s
}

// turn is the turn the agent is answering now: the first prompt not
// answered yet, else the last one (updates that trail the answer).
func (b *builder) turn(session string) *Turn {
	if len(b.turns) == 0 {
		b.turns = append(b.turns, Turn{})
	}
	t := &b.turns[min(b.cur, len(b.turns)-1)]
	if t.Session == "" {
		t.Session = session
	}
	return t
}

// compact is raw JSON on one line (a JSON string as its text).
func compact(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}
