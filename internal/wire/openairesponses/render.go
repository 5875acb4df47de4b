package openairesponses

import (
	"encoding/json"
	"fmt"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/openaichat"
	"github.com/acpsnap/acpsnap/internal/wire/sse"
	"github.com/acpsnap/acpsnap/model"
)

// Render returns the events of r as a stream (see the package doc for the
// mapping).
func Render(r wire.Response) []sse.Event {
	s := newRenderer(r)
	s.open()
	for _, c := range r.Chunks {
		if s.chunk(c) {
			return s.events
		}
	}
	if r.Err != nil {
		s.failed(r.Err)
	}
	return s.events
}

// RenderHang returns the opening events of a stream: response.created and
// response.in_progress, which parse into no chunk.
func RenderHang(id, modelName string) []sse.Event {
	s := newRenderer(wire.Response{ID: id, Model: modelName})
	s.open()
	return s.events
}

// RenderJSON returns the status and body of r as a non-streamed response;
// a failing r answers with its error (ErrorBody).
func RenderJSON(r wire.Response) (int, []byte) {
	if r.Err != nil {
		return ErrorBody(r.Err.Code, r.Err.Message)
	}
	s := newRenderer(r)
	for _, c := range r.Chunks {
		if perr, ok := wire.Failure(c); ok {
			return ErrorBody(perr.Code, perr.Message)
		}
		s.chunk(c)
	}
	if s.final == nil {
		s.final = s.snapshot("completed")
	}
	b, _ := json.Marshal(s.final)
	return 200, append(b, '\n')
}

// ErrorBody returns the status and body that refuse a request with code,
// in the OpenAI error form the chat dialect shares.
func ErrorBody(code, msg string) (int, []byte) { return openaichat.ErrorBody(code, msg) }

// renderer collects the events of one response.
type renderer struct {
	r      wire.Response
	seq    int
	blocks map[int]int // chunk block index → output_index
	items  []item      // the output so far, by output_index
	usage  *usage
	final  *response // set by the finish
	events []sse.Event
}

func newRenderer(r wire.Response) *renderer {
	return &renderer{r: r, blocks: map[int]int{}}
}

func (s *renderer) emit(ev event) {
	ev.SequenceNumber = s.seq
	s.seq++
	b, _ := json.Marshal(ev)
	s.events = append(s.events, sse.New(ev.Type, string(b)))
}

// snapshot returns the response object with status.
func (s *renderer) snapshot(status string) *response {
	out := append([]item{}, s.items...)
	return &response{ID: s.r.ID, Object: "response", Status: status, Model: s.r.Model, Output: out, Usage: s.usage}
}

func (s *renderer) open() {
	s.emit(event{Type: "response.created", Response: s.snapshot("in_progress")})
	s.emit(event{Type: "response.in_progress", Response: s.snapshot("in_progress")})
}

func ptr[T any](v T) *T { return &v }

// chunk renders c and reports whether it ended the stream with an error.
func (s *renderer) chunk(c model.Chunk) (failed bool) {
	switch c.Type {
	case model.BlockStart:
		s.start(c)
	case model.TextDelta:
		k := s.block(c.Index, model.BlockText)
		s.items[k].Content = ptr([]part{{Type: "output_text", Annotations: &[]string{}, Text: (*s.items[k].Content)[0].Text + c.Text}})
		s.emit(event{Type: "response.output_text.delta", ItemID: s.items[k].ID, OutputIndex: &k, ContentIndex: ptr(0), Delta: &c.Text})
	case model.ReasoningDelta:
		k := s.block(c.Index, model.BlockReasoning)
		s.items[k].Summary = ptr([]part{{Type: "summary_text", Text: (*s.items[k].Summary)[0].Text + c.Text}})
		s.emit(event{Type: "response.reasoning_summary_text.delta", ItemID: s.items[k].ID, OutputIndex: &k, SummaryIndex: ptr(0), Delta: &c.Text})
	case model.ToolCallDelta:
		k := s.block(c.Index, model.BlockToolCall)
		s.items[k].Arguments = ptr(*s.items[k].Arguments + c.ArgumentsDelta)
		s.emit(event{Type: "response.function_call_arguments.delta", ItemID: s.items[k].ID, OutputIndex: &k, Delta: &c.ArgumentsDelta})
	case model.BlockEnd:
		s.end(c.Index)
	case model.Usage:
		s.usage = &usage{InputTokens: c.InputTokens, InputTokensDetails: map[string]int{"cached_tokens": 0},
			OutputTokens: c.OutputTokens, OutputTokensDetails: map[string]int{"reasoning_tokens": 0}, TotalTokens: c.InputTokens + c.OutputTokens}
	case model.Finish:
		if perr, ok := wire.Failure(c); ok {
			s.failed(perr)
			return true
		}
		s.finish(c)
	}
	return false
}

// block returns the output index of a block, opening it when no
// block-start did.
func (s *renderer) block(index int, blockType string) int {
	if k, ok := s.blocks[index]; ok {
		return k
	}
	s.start(model.Chunk{Type: model.BlockStart, Index: index, BlockType: blockType})
	return s.blocks[index]
}

// start opens the output item of a block; a tool call's item names the
// call, so it takes the id and name of the block's first delta.
func (s *renderer) start(c model.Chunk) {
	k := len(s.items)
	s.blocks[c.Index] = k
	var it item
	switch c.BlockType {
	case model.BlockText:
		it = item{ID: fmt.Sprintf("msg_%s_%d", s.r.ID, k), Type: "message", Status: "in_progress", Role: "assistant", Content: &[]part{}}
	case model.BlockReasoning:
		it = item{ID: fmt.Sprintf("rs_%s_%d", s.r.ID, k), Type: "reasoning", Summary: &[]part{}}
	default:
		id, name := wire.FirstCall(s.r.Chunks, c.Index)
		it = item{ID: fmt.Sprintf("fc_%s_%d", s.r.ID, k), Type: "function_call", Status: "in_progress", CallID: id, Name: name, Arguments: ptr("")}
	}
	s.items = append(s.items, it)
	s.emit(event{Type: "response.output_item.added", OutputIndex: &k, Item: ptr(it)})
	switch c.BlockType {
	case model.BlockText:
		s.items[k].Content = &[]part{{Type: "output_text", Annotations: &[]string{}}}
		s.emit(event{Type: "response.content_part.added", ItemID: it.ID, OutputIndex: &k, ContentIndex: ptr(0), Part: &part{Type: "output_text", Annotations: &[]string{}}})
	case model.BlockReasoning:
		s.items[k].Summary = &[]part{{Type: "summary_text"}}
		s.emit(event{Type: "response.reasoning_summary_part.added", ItemID: it.ID, OutputIndex: &k, SummaryIndex: ptr(0), Part: &part{Type: "summary_text"}})
	}
}

// end closes the output item of a block.
func (s *renderer) end(index int) {
	k := s.blocks[index]
	it := &s.items[k]
	switch it.Type {
	case "message":
		p := (*it.Content)[0]
		s.emit(event{Type: "response.output_text.done", ItemID: it.ID, OutputIndex: &k, ContentIndex: ptr(0), Text: &p.Text})
		s.emit(event{Type: "response.content_part.done", ItemID: it.ID, OutputIndex: &k, ContentIndex: ptr(0), Part: &p})
		it.Status = "completed"
	case "reasoning":
		p := (*it.Summary)[0]
		s.emit(event{Type: "response.reasoning_summary_text.done", ItemID: it.ID, OutputIndex: &k, SummaryIndex: ptr(0), Text: &p.Text})
		s.emit(event{Type: "response.reasoning_summary_part.done", ItemID: it.ID, OutputIndex: &k, SummaryIndex: ptr(0), Part: &p})
	default:
		s.emit(event{Type: "response.function_call_arguments.done", ItemID: it.ID, OutputIndex: &k, Arguments: it.Arguments})
		it.Status = "completed"
	}
	s.emit(event{Type: "response.output_item.done", OutputIndex: &k, Item: ptr(*it)})
}

// finish ends the response: completed for stop and tool-calls, incomplete
// for max-tokens (reason max_output_tokens) and a model-side stop (its
// reason).
func (s *renderer) finish(c model.Chunk) {
	typ, resp := "response.completed", s.snapshot("completed")
	reason := ""
	if c.Reason == model.FinishMaxTokens {
		reason = "max_output_tokens"
	} else if r, ok := wire.ModelStopReason(c); ok {
		reason = r
	}
	if reason != "" {
		typ, resp = "response.incomplete", s.snapshot("incomplete")
		resp.IncompleteDetails = &incomplete{Reason: reason}
	}
	s.final = resp
	s.emit(event{Type: typ, Response: resp})
}

// failed ends the stream with response.failed carrying the code.
func (s *renderer) failed(perr *model.ProviderError) {
	resp := s.snapshot("failed")
	code, _ := json.Marshal(perr.Code)
	resp.Error = &apiError{Code: code, Message: perr.Message}
	s.emit(event{Type: "response.failed", Response: resp})
}
