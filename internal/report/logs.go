package report

import (
	"bytes"
	"encoding/json"
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// logs reads the session logs: model calls from each, and each child
// (subagent) log's turns under the tool call that spawned it.
func (b *builder) logs(t *Transcript, src Source) error {
	var children []child
	for i, raw := range src.Logs {
		name := scenario.LogName(i)
		if i < len(src.LogNames) {
			name = src.LogNames[i]
		}
		l, err := sessionlog.Read(bytes.NewReader(raw), name)
		if err != nil {
			return err
		}
		if l.Header.Dialect != "" {
			calls, err := composedCalls(raw, l.Header.Dialect, name, src.Pins)
			if err != nil {
				return err
			}
			t.Calls = append(t.Calls, calls...)
			continue
		}
		// A child's tool calls join the transcript's (a grandchild is
		// spawned by one of them); the primary log's are stdout's already.
		n := nativeLog{log: l, name: name, tools: map[string]*Tool{}}
		if l.Header.SpawnedBy != "" {
			n.tools = b.tools
		}
		n.read()
		t.Calls = append(t.Calls, n.calls...)
		if l.Header.SpawnedBy != "" {
			children = append(children, child{spawnedBy: l.Header.SpawnedBy, turns: n.turns})
		}
	}
	for _, c := range children {
		b.attach(c)
	}
	return nil
}

// child is the turns of one subagent session and the call that spawned it.
type child struct {
	spawnedBy string
	turns     []Turn
}

// attach puts a child's turns under the tool call that spawned it, or at
// the end of the last turn when no tool call has that id.
func (b *builder) attach(c child) {
	items := make([]Item, len(c.turns))
	for i := range c.turns {
		items[i] = Item{Kind: Subagent, Turn: &c.turns[i]}
	}
	if tc := b.tools[c.spawnedBy]; tc != nil {
		tc.Items = append(tc.Items, items...)
		return
	}
	if len(b.turns) == 0 {
		b.turns = append(b.turns, Turn{})
	}
	last := &b.turns[len(b.turns)-1]
	last.Items = append(last.Items, items...)
}

// nativeLog reads a log the agent wrote itself (docs/format.md, "Session
// log"): its turns (for a child's transcript) and one model call per
// request/header.
type nativeLog struct {
	log   *sessionlog.Log
	name  string
	tools map[string]*Tool
	turns []Turn
	calls []Call
	call  *response // the open model call's answer
}

// event is the data of a native event, as far as a transcript reads it.
type event struct {
	Turn, Step int
	Model      string
	Content    json.RawMessage
	Text       string
	Reasoning  string
	Chunk      *model.Chunk
	CallID     string
	Name       string
	Arguments  string
	Error      json.RawMessage
	Options    []string
	Outcome    string
	Reason     struct {
		Kind    string
		Message string
	}
}

// read is one pass over the events: a dispatch on the event type.
func (n *nativeLog) read() {
	for _, e := range n.log.Events {
		var d event
		if json.Unmarshal(e.Data, &d) != nil {
			continue
		}
		switch e.Type {
		case "turn/start":
			n.turns = append(n.turns, Turn{Session: n.log.Header.ID})
		case "user/message":
			var bs []block
			_ = json.Unmarshal(d.Content, &bs)
			n.cur().Prompt = blocksText(bs)
		case "request/header":
			n.open(d)
		case "assistant/chunk":
			if n.call != nil && d.Chunk != nil {
				n.call.add(*d.Chunk)
			}
		case "assistant/message":
			t := n.cur()
			t.Items = merged(t.Items, Thought, d.Reasoning)
			t.Items = merged(t.Items, Message, d.Text)
		case "tool/call":
			n.toolCall(d)
		case "tool/result":
			n.toolResult(d)
		case "approval/asked":
			n.cur().Items = append(n.cur().Items, Item{Kind: Permission, Permission: &Asked{Title: n.title(d.CallID), Options: d.Options}})
		case "approval/decided":
			n.decided(d.Outcome)
		case "step/end":
			n.close()
		case "turn/end":
			n.close()
			n.cur().Stop, n.cur().Error = d.Reason.Kind, d.Reason.Message
		}
	}
	n.close()
}

// cur is the turn being read (one is made for events before any turn/start).
func (n *nativeLog) cur() *Turn {
	if len(n.turns) == 0 {
		n.turns = append(n.turns, Turn{Session: n.log.Header.ID})
	}
	return &n.turns[len(n.turns)-1]
}

func (n *nativeLog) open(d event) {
	n.close()
	summary := d.Model
	if t := n.cur(); d.Step <= 1 && t.Prompt != "" {
		summary += " · user: " + oneLine(t.Prompt, 160)
	} else if d.Step > 1 {
		summary += " · after the tool results of step " + itoa(d.Step-1)
	}
	n.calls = append(n.calls, Call{N: len(n.calls) + 1, Log: filepath.Base(n.name), Request: "turn " + itoa(d.Turn) + " step " + itoa(d.Step) + " · " + summary})
	n.call = &response{}
}

func (n *nativeLog) close() {
	if n.call == nil {
		return
	}
	c := &n.calls[len(n.calls)-1]
	c.Status, c.Response = n.call.status(), n.call.String()
	n.call = nil
}

func (n *nativeLog) toolCall(d event) {
	tc := n.tools[d.CallID]
	if tc == nil {
		tc = &Tool{ID: d.CallID}
		n.tools[d.CallID] = tc
	}
	if tc.Title == "" {
		tc.Title = d.Name
	}
	tc.Input = d.Arguments
	n.cur().Items = append(n.cur().Items, Item{Kind: ToolCall, Tool: tc})
}

func (n *nativeLog) toolResult(d event) {
	tc := n.tools[d.CallID]
	if tc == nil {
		return
	}
	var s string
	if json.Unmarshal(d.Content, &s) != nil {
		s = compact(d.Content)
	}
	tc.Output, tc.Status = s, "completed"
	if len(d.Error) > 0 && string(d.Error) != "false" && string(d.Error) != "null" {
		tc.Status = "failed"
	}
}

func (n *nativeLog) title(callID string) string {
	if tc := n.tools[callID]; tc != nil {
		return tc.Title
	}
	return callID
}

// decided sets the answer of the last permission asked.
func (n *nativeLog) decided(outcome string) {
	items := n.cur().Items
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].Kind == Permission {
			items[i].Permission.Answer = outcome
			return
		}
	}
}
