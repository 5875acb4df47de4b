package agent

import (
	"strings"

	"github.com/acpsnap/acpsnap/model"
)

// reply assembles one model call's chunks into an assistant message: text
// and reasoning deltas are concatenated, tool-call deltas are grouped into
// calls (in order of first appearance) and their argument pieces
// concatenated. Chunks after the finish are ignored.
//
// A call is keyed by its id: a stream that interleaves the deltas of two
// calls has one block per switch (one open block at a time), so one call
// may span several blocks. A delta without an id (or the first id of a
// call whose earlier deltas had none) belongs to the call of its block.
type reply struct {
	text      strings.Builder
	reasoning strings.Builder
	calls     []model.ToolCall
	byID      map[string]int // tool-call id → position in calls
	byBlock   map[int]int    // block index → position in calls
	finish    *model.Chunk
}

func (r *reply) add(c model.Chunk) {
	if r.finish != nil {
		return
	}
	switch c.Type {
	case model.TextDelta:
		r.text.WriteString(c.Text)
	case model.ReasoningDelta:
		r.reasoning.WriteString(c.Text)
	case model.ToolCallDelta:
		r.addToolDelta(c)
	case model.Finish:
		f := c
		r.finish = &f
	}
}

func (r *reply) addToolDelta(c model.Chunk) {
	if r.byID == nil {
		r.byID, r.byBlock = map[string]int{}, map[int]int{}
	}
	i, ok := r.byID[c.ID]
	if j, inBlock := r.byBlock[c.Index]; !ok && inBlock && (c.ID == "" || r.calls[j].ID == "") {
		i, ok = j, true
	}
	if !ok {
		i = len(r.calls)
		r.calls = append(r.calls, model.ToolCall{})
	}
	if c.ID != "" {
		r.byID[c.ID] = i
	}
	r.byBlock[c.Index] = i
	tc := &r.calls[i]
	if tc.ID == "" {
		tc.ID = c.ID
	}
	if tc.Name == "" {
		tc.Name = c.Name
	}
	tc.Arguments += c.ArgumentsDelta
}

// message is the assembled assistant message. Tool calls are dropped when
// the model was cut off (max-tokens): their arguments may be truncated.
func (r *reply) message() model.Message {
	m := model.Message{Role: "assistant", Content: r.text.String(), Reasoning: r.reasoning.String(), ToolCalls: r.calls}
	if r.finish != nil && r.finish.Reason == model.FinishMaxTokens {
		m.ToolCalls = nil
	}
	return m
}
