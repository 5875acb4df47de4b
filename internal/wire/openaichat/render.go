package openaichat

import (
	"encoding/json"
	"strings"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/sse"
	"github.com/acpsnap/acpsnap/model"
)

// Render returns the events of r as a stream: a "data: <json>" event per
// text, reasoning and tool-call delta, the finish, the usage after it, and
// "data: [DONE]"; or, when r fails (r.Err, or an error finish that is not
// a model-side stop), the mid-stream error event and no [DONE].
func Render(r wire.Response) []sse.Event {
	s := &renderer{id: r.ID, model: r.Model, calls: map[int]int{}}
	for _, c := range r.Chunks {
		if s.chunk(c) {
			return s.events
		}
	}
	if r.Err != nil {
		s.fail(r.Err.Code, r.Err.Message)
		return s.events
	}
	s.flushUsage()
	s.events = append(s.events, sse.New("", "[DONE]"))
	return s.events
}

// RenderHang returns the opening event DeepSeek sends first, which a
// parser turns into no chunk: a hung stream sends it and waits.
func RenderHang(id, modelName string) []sse.Event {
	s := &renderer{id: id, model: modelName}
	empty := ""
	s.delta(delta{Role: "assistant", Content: &empty}, nil)
	return s.events
}

// renderer collects the events of one stream. A usage chunk is held back
// until after the finish event, where the dialect puts it.
type renderer struct {
	id, model string
	calls     map[int]int // block index of a tool call → its ordinal in the message
	usage     *usage
	events    []sse.Event
}

func (s *renderer) event(v any) {
	b, _ := json.Marshal(v)
	s.events = append(s.events, sse.New("", string(b)))
}

func (s *renderer) delta(d delta, finish *string) {
	s.event(chunkEvent{ID: s.id, Object: "chat.completion.chunk", Model: s.model,
		Choices: []chunkChoice{{Delta: d, FinishReason: finish}}})
}

// chunk renders c and reports whether it ended the stream with an error.
// block-start and block-end have no wire form.
func (s *renderer) chunk(c model.Chunk) (failed bool) {
	switch c.Type {
	case model.TextDelta:
		s.delta(delta{Content: &c.Text}, nil)
	case model.ReasoningDelta:
		s.delta(delta{ReasoningContent: &c.Text}, nil)
	case model.ToolCallDelta:
		s.delta(delta{ToolCalls: []toolCall{s.toolCall(c)}}, nil)
	case model.Usage:
		s.usage = &usage{c.InputTokens, c.OutputTokens, c.InputTokens + c.OutputTokens}
	case model.Finish:
		if perr, ok := wire.Failure(c); ok {
			s.fail(perr.Code, perr.Message)
			return true
		}
		reason := finishReasons[c.Reason]
		if r, ok := wire.ModelStopReason(c); ok {
			reason = r
		}
		s.delta(delta{}, &reason)
		s.flushUsage()
	}
	return false
}

// toolCall returns the wire form of a tool-call delta: id, type and name on
// the first delta of a call only.
func (s *renderer) toolCall(c model.Chunk) toolCall {
	k, seen := s.calls[c.Index]
	if !seen {
		k = len(s.calls)
		s.calls[c.Index] = k
		return toolCall{Index: k, ID: c.ID, Type: "function", Function: function{Name: c.Name, Arguments: c.ArgumentsDelta}}
	}
	return toolCall{Index: k, Function: function{Arguments: c.ArgumentsDelta}}
}

func (s *renderer) flushUsage() {
	if s.usage == nil {
		return
	}
	s.event(chunkEvent{ID: s.id, Object: "chat.completion.chunk", Model: s.model, Choices: []chunkChoice{}, Usage: s.usage})
	s.usage = nil
}

// fail writes the held usage, then the error event.
func (s *renderer) fail(code, msg string) {
	s.flushUsage()
	c, _ := json.Marshal(code)
	s.event(map[string]apiError{"error": {Message: msg, Code: c}})
}

// ErrorBody returns the status and body that refuse a request with code:
// {"error":{"message":…,"type":"api_error","code":code}} and a newline.
func ErrorBody(code, msg string) (int, []byte) {
	c, _ := json.Marshal(code)
	b, _ := json.Marshal(map[string]apiError{"error": {Message: msg, Type: "api_error", Code: c}})
	return wire.Status(code), append(b, '\n')
}

// RenderJSON returns the status and body of r as a non-streamed
// completion: one assistant message with the text, the reasoning and the
// tool calls joined, the finish reason and the usage. A failing r answers
// with its error instead (a non-streamed call cannot fail half-way).
func RenderJSON(r wire.Response) (int, []byte) {
	if r.Err != nil {
		return ErrorBody(r.Err.Code, r.Err.Message)
	}
	var text, reasoning strings.Builder
	var hasText, hasReasoning bool
	var calls []fullCall
	at := map[int]int{}
	c := completion{ID: r.ID, Object: "chat.completion", Model: r.Model}
	reason := ""
	for _, ch := range r.Chunks {
		switch ch.Type {
		case model.TextDelta:
			text.WriteString(ch.Text)
			hasText = true
		case model.ReasoningDelta:
			reasoning.WriteString(ch.Text)
			hasReasoning = true
		case model.ToolCallDelta:
			k, ok := at[ch.Index]
			if !ok {
				k = len(calls)
				at[ch.Index] = k
				calls = append(calls, fullCall{ID: ch.ID, Type: "function", Function: fullFunction{Name: ch.Name}})
			}
			calls[k].Function.Arguments += ch.ArgumentsDelta
		case model.Usage:
			c.Usage = &usage{ch.InputTokens, ch.OutputTokens, ch.InputTokens + ch.OutputTokens}
		case model.Finish:
			if perr, ok := wire.Failure(ch); ok {
				return ErrorBody(perr.Code, perr.Message)
			}
			reason = finishReasons[ch.Reason]
			if mr, ok := wire.ModelStopReason(ch); ok {
				reason = mr
			}
		}
	}
	m := message{Role: "assistant", ToolCalls: calls}
	if hasText || len(calls) == 0 {
		s := text.String()
		m.Content = &s
	}
	if hasReasoning {
		s := reasoning.String()
		m.ReasoningContent = &s
	}
	c.Choices = []completionChoice{{Message: m, FinishReason: reason}}
	b, _ := json.Marshal(c)
	return 200, append(b, '\n')
}
