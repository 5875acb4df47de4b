package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/acpsnap/acpsnap/internal/conformance"
)

// update is the part of a session/update notification a transcript reads.
type update struct {
	Content       json.RawMessage `json:"content"`
	ToolCallID    string          `json:"toolCallId"`
	Kind          *string         `json:"kind"`
	Title         *string         `json:"title"`
	Status        *string         `json:"status"`
	RawInput      json.RawMessage `json:"rawInput"`
	RawOutput     json.RawMessage `json:"rawOutput"`
	Entries       []PlanEntry     `json:"entries"`
	CurrentModeID string          `json:"currentModeId"`
	Meta          map[string]struct {
		ParentToolUseID string `json:"parentToolUseId"`
	} `json:"_meta"`
}

func (b *builder) update(n conformance.Update) {
	var u update
	if len(n.Update) > 0 && json.Unmarshal(n.Update, &u) != nil {
		return
	}
	t := b.turn(string(n.Session))
	switch n.Kind {
	case "agent_message_chunk":
		t.Items = b.chunk(t.Items, Message, chunkText(u.Content))
	case "agent_thought_chunk":
		t.Items = b.chunk(t.Items, Thought, chunkText(u.Content))
	case "user_message_chunk":
		b.brk = true
		t.Items = b.chunk(t.Items, Replayed, chunkText(u.Content))
	case "tool_call", "tool_call_update":
		b.tool(t, u)
	case "plan":
		t.Items = append(t.Items, Item{Kind: Plan, Plan: u.Entries})
	case "current_mode_update":
		t.Items = append(t.Items, Item{Kind: Mode, Text: u.CurrentModeID})
	}
}

// chunk merges a message or thought chunk into the items, or starts a
// new item after an answer to the client came between (a loaded session's
// history, then the reply to the next prompt).
func (b *builder) chunk(items []Item, k Kind, text string) []Item {
	if b.brk && text != "" {
		b.brk = false
		return append(items, Item{Kind: k, Text: text})
	}
	return merged(items, k, text)
}

// merged adds text to the last item when it is of kind k (chunks of one
// message), else as a new item. Empty chunks add nothing. A chunk that
// continues an item is kept as an item of its own, of kind more(k), until
// Build joins each run of them (coalesce): joining one at a time would
// copy the message once per chunk.
func merged(items []Item, k Kind, text string) []Item {
	if text == "" {
		return items
	}
	if n := len(items); n > 0 && (items[n-1].Kind == k || items[n-1].Kind == more(k)) {
		return append(items, Item{Kind: more(k), Text: text})
	}
	return append(items, Item{Kind: k, Text: text})
}

// more is the kind of a chunk that continues an item of kind k, while the
// transcript is built.
func more(k Kind) Kind { return k + "+" }

// MaxBuiltText bounds the text a transcript keeps of one item (a message,
// a thought): past it the text is cut, and a note says how much was left
// out. What shows it caps it further (MaxTextBytes).
const MaxBuiltText = 1 << 20

// coalesce joins each item with the chunks that continue it (more), its
// text within MaxBuiltText, in items and every item under them.
func coalesce(items []Item) []Item {
	out := items[:0]
	for i := 0; i < len(items); {
		it := items[i]
		j := i + 1
		for j < len(items) && items[j].Kind == more(it.Kind) {
			j++
		}
		if j > i+1 || len(it.Text) > MaxBuiltText+noteRoom {
			it.Text = joinText(items[i:j])
		}
		if it.Tool != nil {
			it.Tool.Items = coalesce(it.Tool.Items)
		}
		if it.Turn != nil {
			it.Turn.Items = coalesce(it.Turn.Items)
		}
		out = append(out, it)
		i = j
	}
	return out
}

// noteRoom is room for joinText's note: a text cut already is not cut
// again.
const noteRoom = 32

// joinText is the texts of items, MaxBuiltText of them, then a note.
func joinText(items []Item) string {
	var sb strings.Builder
	left := 0
	for _, it := range items {
		room := MaxBuiltText - sb.Len()
		if len(it.Text) <= room {
			sb.WriteString(it.Text)
			continue
		}
		n := runeCutAt(it.Text, max(room, 0))
		sb.WriteString(it.Text[:n])
		left += len(it.Text) - n
	}
	if left > 0 {
		fmt.Fprintf(&sb, "… %s more not kept", size(left))
	}
	return sb.String()
}

func chunkText(raw json.RawMessage) string {
	var c block
	if json.Unmarshal(raw, &c) != nil {
		return ""
	}
	if c.Type == "text" {
		return c.Text
	}
	return c.text()
}

// tool applies a tool_call or tool_call_update: a new call goes under its
// parent call when the agent names one (_meta.*.parentToolUseId), else
// into the turn.
func (b *builder) tool(t *Turn, u update) {
	tc := b.tools[u.ToolCallID]
	if tc == nil {
		tc = &Tool{ID: u.ToolCallID}
		b.tools[u.ToolCallID] = tc
		item := Item{Kind: ToolCall, Tool: tc}
		if parent := b.tools[u.parent()]; parent != nil && parent != tc {
			parent.Items = append(parent.Items, item)
		} else {
			t.Items = append(t.Items, item)
		}
	}
	set(&tc.Kind, u.Kind)
	set(&tc.Title, u.Title)
	set(&tc.Status, u.Status)
	if in := compact(u.RawInput); len(u.RawInput) > 0 && in != "{}" && in != "null" {
		tc.Input = in
	}
	if out := toolOutput(u.Content); out != "" {
		tc.Output = out
	} else if len(u.RawOutput) > 0 && tc.Output == "" {
		tc.Output = compact(u.RawOutput)
	}
}

func (u update) parent() string {
	for _, m := range u.Meta {
		if m.ParentToolUseID != "" {
			return m.ParentToolUseID
		}
	}
	return ""
}

func set(dst *string, v *string) {
	if v != nil && *v != "" {
		*dst = *v
	}
}

// toolOutput is the text of a tool call's content: text blocks as they
// are, a diff as "edit PATH", a terminal as "terminal ID".
func toolOutput(raw json.RawMessage) string {
	var cs []struct {
		Type       string `json:"type"`
		Content    block  `json:"content"`
		Path       string `json:"path"`
		TerminalID string `json:"terminalId"`
	}
	if json.Unmarshal(raw, &cs) != nil {
		return ""
	}
	var parts []string
	for _, c := range cs {
		switch c.Type {
		case "content":
			parts = append(parts, c.Content.text())
		case "diff":
			parts = append(parts, "edit "+c.Path)
		case "terminal":
			parts = append(parts, "terminal "+c.TerminalID)
		}
	}
	return strings.Join(parts, "\n")
}

// permission takes a session/request_permission: its options, and the
// answer the client script gives the next request (the harness answers
// them in order, by option kind).
func (b *builder) permission(params json.RawMessage) {
	var p struct {
		SessionID string `json:"sessionId"`
		Options   []struct {
			Kind, Name string
		} `json:"options"`
		ToolCall struct {
			ToolCallID string  `json:"toolCallId"`
			Title      *string `json:"title"`
		} `json:"toolCall"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	a := &Asked{}
	if tc := b.tools[p.ToolCall.ToolCallID]; tc != nil {
		a.Title = tc.Title
	}
	set(&a.Title, p.ToolCall.Title)
	var kind string
	if b.in != nil && b.asked < len(b.in.PermissionAnswers) {
		kind = b.in.PermissionAnswers[b.asked].Kind
	}
	b.asked++
	for _, o := range p.Options {
		a.Options = append(a.Options, o.Name)
		if o.Kind == kind && a.Answer == "" {
			a.Answer = o.Name
		}
	}
	t := b.turn(p.SessionID)
	t.Items = append(t.Items, Item{Kind: Permission, Permission: a})
}
