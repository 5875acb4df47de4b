package openaichat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/model"
)

// Decode reads a streamed response to "data: [DONE]" and calls emit with
// its chunks in canonical order: one open block at a time, block indices
// 0, 1, 2… in order of appearance (reasoning, then text, then tool calls
// within one delta), a block closed when the next one starts, and at
// [DONE] the open block's block-end, the usage (if any) and the finish.
// Empty text and reasoning (DeepSeek opens every message with content "")
// start no block; a tool call's id is repeated on each of its deltas, its
// name sent once; a finish_reason other than stop, tool_calls and length
// is a model-side stop (wire.ModelStop).
//
// It returns nil after the finish chunk, the error of emit as is, or a
// *model.ProviderError: STREAM when the body ends or breaks before [DONE]
// or an event is not JSON, or the code of an error event (its own code
// when it is one of ours, else STREAM).
func Decode(body io.Reader, emit func(model.Chunk) error) error {
	d := &decoder{emit: emit, open: -1, calls: map[int]*call{}}
	return wire.ReadEvents(body, "[DONE]", func(data []byte) (bool, error) {
		if string(bytes.TrimSpace(data)) == "[DONE]" {
			return true, d.end()
		}
		return false, d.event(data)
	})
}

// decoder turns the events of one stream into canonical chunks.
type decoder struct {
	emit func(model.Chunk) error

	next     int    // index of the next block
	open     int    // index of the open block; -1: none
	openType string // block type of the open block
	openCall int    // tool_calls[].index of the open tool-call block
	calls    map[int]*call

	finish string // finish_reason as received; "": none yet
	usage  *usage
}

// call is what the decoder remembers of one tool call of the message.
type call struct {
	id    string
	named bool // the name has been emitted
}

// event handles one data event.
func (d *decoder) event(data []byte) error {
	var ev chunkEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		return streamError(fmt.Sprintf("bad stream event %s: %v", wire.Truncate(data), err))
	}
	if ev.Error != nil {
		return ev.Error.providerError(model.CodeStream)
	}
	for _, c := range ev.Choices {
		if c.Index != 0 {
			continue // only one choice is ever requested
		}
		if err := d.delta(c.Delta); err != nil {
			return err
		}
		if c.FinishReason != nil && *c.FinishReason != "" {
			d.finish = *c.FinishReason
		}
	}
	if ev.Usage != nil {
		d.usage = ev.Usage
	}
	return nil
}

// delta emits the chunks of one choice delta: reasoning, then text, then
// tool calls.
func (d *decoder) delta(dl delta) error {
	if dl.ReasoningContent != nil {
		if err := d.text(model.BlockReasoning, model.ReasoningDelta, *dl.ReasoningContent); err != nil {
			return err
		}
	}
	if dl.Content != nil {
		if err := d.text(model.BlockText, model.TextDelta, *dl.Content); err != nil {
			return err
		}
	}
	for _, tc := range dl.ToolCalls {
		if err := d.toolCall(tc); err != nil {
			return err
		}
	}
	return nil
}

func (d *decoder) text(blockType, chunkType, text string) error {
	if text == "" {
		return nil
	}
	if err := d.start(blockType, -1); err != nil {
		return err
	}
	return d.emit(model.Chunk{Type: chunkType, Index: d.open, Text: text})
}

// toolCall emits one tool-call delta, keyed by the call's index in the
// message.
func (d *decoder) toolCall(tc toolCall) error {
	c := d.calls[tc.Index]
	if c == nil {
		c = &call{id: tc.ID}
		if c.id == "" {
			c.id = fmt.Sprintf("call_%d", tc.Index)
		}
		d.calls[tc.Index] = c
	}
	var name string
	if !c.named && tc.Function.Name != "" {
		name, c.named = tc.Function.Name, true
	}
	if err := d.start(model.BlockToolCall, tc.Index); err != nil {
		return err
	}
	return d.emit(model.Chunk{Type: model.ToolCallDelta, Index: d.open, ID: c.id, Name: name, ArgumentsDelta: tc.Function.Arguments})
}

// start makes a block of blockType (for tool calls: of call) the open one,
// closing the block open before.
func (d *decoder) start(blockType string, call int) error {
	if d.open >= 0 && d.openType == blockType && d.openCall == call {
		return nil
	}
	if err := d.closeBlock(); err != nil {
		return err
	}
	d.open, d.openType, d.openCall = d.next, blockType, call
	d.next++
	return d.emit(model.Chunk{Type: model.BlockStart, Index: d.open, BlockType: blockType})
}

func (d *decoder) closeBlock() error {
	if d.open < 0 {
		return nil
	}
	i := d.open
	d.open = -1
	return d.emit(model.Chunk{Type: model.BlockEnd, Index: i})
}

// end emits the closing chunks at [DONE].
func (d *decoder) end() error {
	if d.finish == "" {
		return streamError("stream ended without a finish_reason")
	}
	if err := d.closeBlock(); err != nil {
		return err
	}
	if d.usage != nil {
		if err := d.emit(model.Chunk{Type: model.Usage, InputTokens: d.usage.PromptTokens, OutputTokens: d.usage.CompletionTokens}); err != nil {
			return err
		}
	}
	return d.emit(finishChunk(d.finish))
}

// finishChunk maps a finish_reason to the finish chunk.
func finishChunk(reason string) model.Chunk {
	if r, ok := chunkReasons[reason]; ok {
		return model.Chunk{Type: model.Finish, Reason: r}
	}
	return wire.ModelStop(reason)
}

// DecodeJSON reads a non-streamed completion and calls emit with its
// chunks in canonical order: a reasoning block, a text block, a block per
// tool call (each with one delta), the usage and the finish.
func DecodeJSON(body []byte, emit func(model.Chunk) error) error {
	var c completion
	if err := json.Unmarshal(body, &c); err != nil || len(c.Choices) == 0 {
		return streamError(fmt.Sprintf("bad completion %s", wire.Truncate(body)))
	}
	ch := c.Choices[0]
	var chunks []model.Chunk
	block := func(typ string, deltas ...model.Chunk) {
		i := 0
		if len(chunks) > 0 {
			i = chunks[len(chunks)-1].Index + 1
		}
		chunks = append(chunks, model.Chunk{Type: model.BlockStart, Index: i, BlockType: typ})
		for _, dc := range deltas {
			dc.Index = i
			chunks = append(chunks, dc)
		}
		chunks = append(chunks, model.Chunk{Type: model.BlockEnd, Index: i})
	}
	if m := ch.Message.ReasoningContent; m != nil && *m != "" {
		block(model.BlockReasoning, model.Chunk{Type: model.ReasoningDelta, Text: *m})
	}
	if m := ch.Message.Content; m != nil && *m != "" {
		block(model.BlockText, model.Chunk{Type: model.TextDelta, Text: *m})
	}
	for _, tc := range ch.Message.ToolCalls {
		block(model.BlockToolCall, model.Chunk{Type: model.ToolCallDelta, ID: tc.ID, Name: tc.Function.Name, ArgumentsDelta: tc.Function.Arguments})
	}
	if c.Usage != nil {
		chunks = append(chunks, model.Chunk{Type: model.Usage, InputTokens: c.Usage.PromptTokens, OutputTokens: c.Usage.CompletionTokens})
	}
	chunks = append(chunks, finishChunk(ch.FinishReason))
	for _, x := range chunks {
		if err := emit(x); err != nil {
			return err
		}
	}
	return nil
}
