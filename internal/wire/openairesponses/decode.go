package openairesponses

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/openaichat"
	"github.com/acpsnap/acpsnap/model"
)

// Decode reads a streamed response to its response.completed (or
// .incomplete) and calls emit with its chunks (see the package doc). It
// returns nil after the finish chunk, the error of emit as is, or a
// *model.ProviderError: STREAM when the body ends or breaks first or an
// event is not JSON, the code of a response.failed or error event.
func Decode(body io.Reader, emit func(model.Chunk) error) error {
	d := &decoder{emit: emit, blocks: map[int]*block{}}
	return wire.ReadEvents(body, "response.completed", d.event)
}

// decoder turns the events of one stream into chunks.
type decoder struct {
	emit   func(model.Chunk) error
	next   int            // chunk index of the next block
	blocks map[int]*block // by output_index
	calls  bool           // a function call was output
}

// block is an open output item.
type block struct {
	index  int
	typ    string // the item's type
	callID string
	named  bool // the name has been emitted
	name   string
	deltas int
}

// event handles one event and reports whether it ended the response.
func (d *decoder) event(data []byte) (bool, error) {
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		return false, streamError(fmt.Sprintf("bad stream event %s: %v", wire.Truncate(data), err))
	}
	switch ev.Type {
	case "response.output_item.added":
		return false, d.added(ev)
	case "response.output_text.delta":
		return false, d.delta(ev, model.TextDelta)
	case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
		return false, d.delta(ev, model.ReasoningDelta)
	case "response.function_call_arguments.delta":
		return false, d.delta(ev, model.ToolCallDelta)
	case "response.output_item.done":
		return false, d.done(ev)
	case "response.completed", "response.incomplete":
		if ev.Response == nil {
			return false, streamError(ev.Type + " without a response")
		}
		return true, d.finish(ev.Response)
	case "response.failed":
		if ev.Response == nil || ev.Response.Error == nil {
			return false, streamError("response failed without an error")
		}
		return false, providerError(ev.Response.Error.Code, ev.Response.Error.Message)
	case "error":
		return false, providerError(ev.Code, ev.Message)
	}
	return false, nil
}

var blockTypes = map[string]string{"message": model.BlockText, "reasoning": model.BlockReasoning, "function_call": model.BlockToolCall}

// added opens the block of an output item.
func (d *decoder) added(ev event) error {
	if ev.Item == nil || ev.OutputIndex == nil {
		return streamError("output item added without item or output_index")
	}
	bt, ok := blockTypes[ev.Item.Type]
	if !ok {
		return nil // items acpsnap has no chunk for (web search, …)
	}
	b := &block{index: d.next, typ: ev.Item.Type, callID: ev.Item.CallID, name: ev.Item.Name}
	d.next++
	d.blocks[*ev.OutputIndex] = b
	d.calls = d.calls || bt == model.BlockToolCall
	return d.emit(model.Chunk{Type: model.BlockStart, Index: b.index, BlockType: bt})
}

// delta emits one delta of an open block.
func (d *decoder) delta(ev event, typ string) error {
	if ev.OutputIndex == nil || d.blocks[*ev.OutputIndex] == nil || ev.Delta == nil {
		return streamError(ev.Type + " outside an output item")
	}
	return d.send(d.blocks[*ev.OutputIndex], typ, *ev.Delta)
}

func (d *decoder) send(b *block, typ, text string) error {
	b.deltas++
	c := model.Chunk{Type: typ, Index: b.index}
	if typ != model.ToolCallDelta {
		c.Text = text
		return d.emit(c)
	}
	c.ID, c.ArgumentsDelta = b.callID, text
	if !b.named {
		c.Name, b.named = b.name, true
	}
	return d.emit(c)
}

// done closes a block; an item that streamed no delta but carries its
// content (some servers send only the done) emits it as one delta.
func (d *decoder) done(ev event) error {
	if ev.OutputIndex == nil || d.blocks[*ev.OutputIndex] == nil {
		return nil
	}
	b := d.blocks[*ev.OutputIndex]
	delete(d.blocks, *ev.OutputIndex)
	if b.deltas == 0 && ev.Item != nil {
		if typ, text := itemText(*ev.Item); text != "" {
			if err := d.send(b, typ, text); err != nil {
				return err
			}
		}
	}
	return d.emit(model.Chunk{Type: model.BlockEnd, Index: b.index})
}

// itemText returns the delta type and the whole content of a done item.
func itemText(it item) (string, string) {
	join := func(ps *[]part) string {
		s := ""
		if ps != nil {
			for _, p := range *ps {
				s += p.Text
			}
		}
		return s
	}
	switch it.Type {
	case "message":
		return model.TextDelta, join(it.Content)
	case "reasoning":
		return model.ReasoningDelta, join(it.Summary)
	}
	args := ""
	if it.Arguments != nil {
		args = *it.Arguments
	}
	return model.ToolCallDelta, args
}

// finish closes the blocks still open (a server that sent no
// output_item.done), then emits the usage (when the response has one) and
// the finish.
func (d *decoder) finish(r *response) error {
	for _, k := range slices.Sorted(maps.Keys(d.blocks)) {
		if err := d.done(event{OutputIndex: &k}); err != nil {
			return err
		}
	}
	if r.Usage != nil {
		if err := d.emit(model.Chunk{Type: model.Usage, InputTokens: r.Usage.InputTokens, OutputTokens: r.Usage.OutputTokens}); err != nil {
			return err
		}
	}
	return d.emit(finishChunk(r, d.calls))
}

// finishChunk maps a response's status to a finish: completed is
// tool-calls when a function call was output, else stop; incomplete is
// max-tokens for max_output_tokens, else a model-side stop with its reason.
func finishChunk(r *response, calls bool) model.Chunk {
	if r.Status == "incomplete" {
		reason := ""
		if r.IncompleteDetails != nil {
			reason = r.IncompleteDetails.Reason
		}
		if reason == "max_output_tokens" {
			return model.Chunk{Type: model.Finish, Reason: model.FinishMaxTokens}
		}
		return wire.ModelStop(reason)
	}
	if calls {
		return model.Chunk{Type: model.Finish, Reason: model.FinishToolCalls}
	}
	return model.Chunk{Type: model.Finish, Reason: model.FinishStop}
}

// DecodeJSON reads a non-streamed response and calls emit with its chunks:
// a block per output item with its whole content as one delta, the usage
// and the finish.
func DecodeJSON(body []byte, emit func(model.Chunk) error) error {
	var r response
	if err := json.Unmarshal(body, &r); err != nil {
		return streamError(fmt.Sprintf("bad response %s: %v", wire.Truncate(body), err))
	}
	if r.Status == "failed" && r.Error != nil {
		return providerError(r.Error.Code, r.Error.Message)
	}
	d := &decoder{emit: emit, blocks: map[int]*block{}}
	for i, it := range r.Output {
		it := it
		if err := d.added(event{Item: &it, OutputIndex: &i}); err != nil {
			return err
		}
		if err := d.done(event{Item: &it, OutputIndex: &i}); err != nil {
			return err
		}
	}
	return d.finish(&r)
}

// codes maps OpenAI's error codes to ours; a code of ours is kept.
var codes = map[string]string{
	"rate_limit_exceeded": model.CodeRateLimit, "insufficient_quota": model.CodeRateLimit,
	"server_error": model.CodeUnavailable, "server_is_overloaded": model.CodeUnavailable,
	"invalid_api_key": model.CodeAuth, "invalid_prompt": model.CodeBadRequest,
	"context_length_exceeded": model.CodeBadRequest,
}

// providerError returns the error of a failed response or error event:
// STREAM unless its code is one of ours or OpenAI's known ones.
func providerError(rawCode json.RawMessage, msg string) *model.ProviderError {
	var code string
	json.Unmarshal(rawCode, &code)
	switch {
	case wire.IsCode(code):
	case codes[code] != "":
		code = codes[code]
	default:
		code = model.CodeStream
	}
	return &model.ProviderError{Code: code, Message: msg}
}

func streamError(msg string) *model.ProviderError {
	return &model.ProviderError{Code: model.CodeStream, Message: msg}
}

// ResponseError turns an error response into a provider error, as the
// chat dialect does (the error body is the same).
func ResponseError(status int, statusText, contentType string, body []byte) *model.ProviderError {
	return openaichat.ResponseError(status, statusText, contentType, body)
}
