package anthropic

import (
	"encoding/json"
	"strings"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/sse"
	"github.com/acpsnap/acpsnap/model"
)

// Signature is the signature_delta sent at the end of every thinking
// block: agents keep it and send it back, and only the real API checks it.
const Signature = "acpsnap"

// Render returns the events of r as a stream (see the package doc).
func Render(r wire.Response) []sse.Event {
	s := &renderer{r: r, blocks: map[int]int{}}
	s.open()
	for _, c := range r.Chunks {
		if s.chunk(c) {
			return s.events
		}
	}
	if r.Err != nil {
		s.fail(r.Err.Code, r.Err.Message)
	}
	return s.events
}

// RenderHang returns the opening events of a stream, message_start and a
// ping, which parse into no chunk.
func RenderHang(id, modelName string) []sse.Event {
	s := &renderer{r: wire.Response{ID: id, Model: modelName}}
	s.open()
	return s.events
}

// renderer collects the events of one message.
type renderer struct {
	r      wire.Response
	blocks map[int]int // chunk block index → content block index
	types  map[int]string
	events []sse.Event
}

func (s *renderer) emit(ev event) { s.emitAs(ev.Type, ev) }

func (s *renderer) emitAs(typ string, v any) {
	b, _ := json.Marshal(v)
	s.events = append(s.events, sse.New(typ, string(b)))
}

// usage returns the usage of the response's usage chunk, zero without one.
func (s *renderer) usage() usage {
	for _, c := range s.r.Chunks {
		if c.Type == model.Usage {
			return usage{c.InputTokens, c.OutputTokens}
		}
	}
	return usage{}
}

func (s *renderer) open() {
	m := &message{ID: s.r.ID, Type: "message", Role: "assistant", Model: s.r.Model, Content: []block{},
		Usage: usage{InputTokens: s.usage().InputTokens}}
	s.emit(event{Type: "message_start", Message: m})
	s.emit(event{Type: "ping"})
}

func ptr[T any](v T) *T { return &v }

// chunk renders c and reports whether it ended the stream with an error.
func (s *renderer) chunk(c model.Chunk) (failed bool) {
	switch c.Type {
	case model.BlockStart:
		s.start(c.Index, c.BlockType)
	case model.TextDelta:
		s.delta(c.Index, model.BlockText, delta{Type: "text_delta", Text: &c.Text})
	case model.ReasoningDelta:
		s.delta(c.Index, model.BlockReasoning, delta{Type: "thinking_delta", Thinking: &c.Text})
	case model.ToolCallDelta:
		s.delta(c.Index, model.BlockToolCall, delta{Type: "input_json_delta", PartialJSON: &c.ArgumentsDelta})
	case model.BlockEnd:
		k := s.blocks[c.Index]
		if s.types[c.Index] == model.BlockReasoning {
			s.emit(event{Type: "content_block_delta", Index: &k, Delta: &delta{Type: "signature_delta", Signature: ptr(Signature)}})
		}
		s.emit(event{Type: "content_block_stop", Index: &k})
	case model.Finish:
		if perr, ok := wire.Failure(c); ok {
			s.fail(perr.Code, perr.Message)
			return true
		}
		s.emitAs("message_delta", messageDelta{Type: "message_delta", Delta: stopDelta{StopReason: stopReason(c)}, Usage: s.usage()})
		s.emit(event{Type: "message_stop"})
	}
	return false
}

// stopReason returns the stop_reason of a finish.
func stopReason(c model.Chunk) string {
	if r, ok := wire.ModelStopReason(c); ok {
		return r
	}
	return stopReasons[c.Reason]
}

// start opens a content block; a tool_use block names its call with the
// id and name of the block's first delta.
func (s *renderer) start(index int, blockType string) {
	k := len(s.blocks)
	s.blocks[index] = k
	if s.types == nil {
		s.types = map[int]string{}
	}
	s.types[index] = blockType
	s.emit(event{Type: "content_block_start", Index: &k, ContentBlock: s.emptyBlock(index, blockType)})
}

func (s *renderer) emptyBlock(index int, blockType string) *block {
	switch blockType {
	case model.BlockText:
		return &block{Type: "text", Text: ptr("")}
	case model.BlockReasoning:
		return &block{Type: "thinking", Thinking: ptr(""), Signature: ptr("")}
	}
	id, name := wire.FirstCall(s.r.Chunks, index)
	return &block{Type: "tool_use", ID: id, Name: name, Input: json.RawMessage("{}")}
}

// delta writes a content_block_delta, opening the block when no
// block-start did.
func (s *renderer) delta(index int, blockType string, d delta) {
	if _, ok := s.blocks[index]; !ok {
		s.start(index, blockType)
	}
	k := s.blocks[index]
	s.emit(event{Type: "content_block_delta", Index: &k, Delta: &d})
}

// fail ends the stream with an error event.
func (s *renderer) fail(code, msg string) {
	s.emit(event{Type: "error", Error: &apiError{Type: errorType(code), Message: msg}})
}

func errorType(code string) string {
	for _, e := range errorTypes {
		if e.code == code {
			return e.typ
		}
	}
	return "api_error"
}

// ErrorBody returns the status and body that refuse a request with code:
// {"type":"error","error":{"type":T,"message":msg}} and a newline.
func ErrorBody(code, msg string) (int, []byte) {
	b, _ := json.Marshal(event{Type: "error", Error: &apiError{Type: errorType(code), Message: msg}})
	return wire.Status(code), append(b, '\n')
}

// RenderJSON returns the status and body of r as a non-streamed message:
// a content block per block, a tool_use's input the parsed arguments ({}
// when they are not a JSON object). A failing r answers with its error.
func RenderJSON(r wire.Response) (int, []byte) {
	if r.Err != nil {
		return ErrorBody(r.Err.Code, r.Err.Message)
	}
	s := &renderer{r: r}
	m := message{ID: r.ID, Type: "message", Role: "assistant", Model: r.Model, Content: []block{}, Usage: s.usage()}
	at := map[int]int{}
	args := map[int]*strings.Builder{}
	for _, c := range r.Chunks {
		if perr, ok := wire.Failure(c); ok {
			return ErrorBody(perr.Code, perr.Message)
		}
		if c.Type == model.Finish {
			m.StopReason = ptr(stopReason(c))
			continue
		}
		bt := map[string]string{model.BlockStart: c.BlockType, model.TextDelta: model.BlockText,
			model.ReasoningDelta: model.BlockReasoning, model.ToolCallDelta: model.BlockToolCall}[c.Type]
		if bt == "" {
			continue
		}
		k, ok := at[c.Index]
		if !ok {
			k = len(m.Content)
			at[c.Index] = k
			m.Content = append(m.Content, *s.emptyBlock(c.Index, bt))
			args[k] = &strings.Builder{}
		}
		b := &m.Content[k]
		switch c.Type {
		case model.TextDelta:
			b.Text = ptr(*b.Text + c.Text)
		case model.ReasoningDelta:
			b.Thinking, b.Signature = ptr(*b.Thinking+c.Text), ptr(Signature)
		case model.ToolCallDelta:
			args[k].WriteString(c.ArgumentsDelta)
		}
	}
	for k, a := range args {
		if m.Content[k].Type == "tool_use" && strings.HasPrefix(strings.TrimSpace(a.String()), "{") && json.Valid([]byte(a.String())) {
			m.Content[k].Input = json.RawMessage(a.String())
		}
	}
	b, _ := json.Marshal(m)
	return 200, append(b, '\n')
}

// CountTokens answers /v1/messages/count_tokens: {"input_tokens":N} with N
// a deterministic stand-in, a quarter of the request body's length
// rounded up.
func CountTokens(body []byte) []byte {
	b, _ := json.Marshal(map[string]int{"input_tokens": (len(body) + 3) / 4})
	return append(b, '\n')
}
