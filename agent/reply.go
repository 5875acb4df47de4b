package agent

import (
	"strings"

	"github.com/acpsnap/acpsnap/llmreplay"
)

// reply assembles one model call's chunks into an assistant message: text
// and reasoning deltas are concatenated, tool-call deltas are grouped by
// block index (one block per call, in order of appearance) and their
// argument pieces concatenated. Chunks after the finish are ignored.
type reply struct {
	text      strings.Builder
	reasoning strings.Builder
	calls     []ToolCall
	byIndex   map[int]int // block index → position in calls
	finish    *llmreplay.Chunk
}

func (r *reply) add(c llmreplay.Chunk) {
	if r.finish != nil {
		return
	}
	switch c.Type {
	case llmreplay.TextDelta:
		r.text.WriteString(c.Text)
	case llmreplay.ReasoningDelta:
		r.reasoning.WriteString(c.Text)
	case llmreplay.ToolCallDelta:
		r.addToolDelta(c)
	case llmreplay.Finish:
		f := c
		r.finish = &f
	}
}

func (r *reply) addToolDelta(c llmreplay.Chunk) {
	if r.byIndex == nil {
		r.byIndex = map[int]int{}
	}
	i, ok := r.byIndex[c.Index]
	if !ok {
		i = len(r.calls)
		r.byIndex[c.Index] = i
		r.calls = append(r.calls, ToolCall{})
	}
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
func (r *reply) message() Message {
	m := Message{Role: "assistant", Content: r.text.String(), Reasoning: r.reasoning.String(), ToolCalls: r.calls}
	if r.finish != nil && r.finish.Reason == llmreplay.FinishMaxTokens {
		m.ToolCalls = nil
	}
	return m
}
