package anthropic

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/model"
)

// Decode reads a streamed message to its message_stop and calls emit with
// its chunks (see the package doc). It returns nil after the finish chunk,
// the error of emit as is, or a *model.ProviderError: STREAM when the body
// ends or breaks first or an event is not JSON, the code of an error event.
func Decode(body io.Reader, emit func(model.Chunk) error) error {
	d := &decoder{emit: emit, blocks: map[int]*openBlock{}}
	return wire.ReadEvents(body, "message_stop", d.event)
}

// decoder turns the events of one message into chunks.
type decoder struct {
	emit   func(model.Chunk) error
	next   int                // chunk index of the next block
	blocks map[int]*openBlock // by content block index
	usage  usage
	stop   string
}

type openBlock struct {
	index    int
	typ      string // the chunk block type
	id, name string
	named    bool
}

var blockTypes = map[string]string{"text": model.BlockText, "thinking": model.BlockReasoning, "tool_use": model.BlockToolCall}

// event handles one event and reports whether it ended the message.
func (d *decoder) event(data []byte) (bool, error) {
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		return false, streamError(fmt.Sprintf("bad stream event %s: %v", wire.Truncate(data), err))
	}
	switch ev.Type {
	case "message_start":
		if ev.Message != nil {
			d.usage = ev.Message.Usage
		}
	case "content_block_start":
		return false, d.start(ev)
	case "content_block_delta":
		return false, d.delta(ev)
	case "content_block_stop":
		return false, d.stopBlock(ev)
	case "message_delta":
		if ev.Delta != nil && ev.Delta.StopReason != nil {
			d.stop = *ev.Delta.StopReason
		}
		if ev.Usage != nil {
			d.usage.OutputTokens = ev.Usage.OutputTokens
			if ev.Usage.InputTokens != 0 {
				d.usage.InputTokens = ev.Usage.InputTokens
			}
		}
	case "message_stop":
		if d.stop == "" {
			return false, streamError("message stopped without a stop_reason")
		}
		return true, d.finish()
	case "error":
		if ev.Error == nil {
			return false, streamError("error event without an error")
		}
		return false, ev.Error.providerError(model.CodeStream)
	}
	return false, nil
}

func (d *decoder) start(ev event) error {
	if ev.Index == nil || ev.ContentBlock == nil {
		return streamError("content_block_start without index or content_block")
	}
	bt, ok := blockTypes[ev.ContentBlock.Type]
	if !ok {
		return nil // blocks acpsnap has no chunk for (redacted_thinking, server tools, …)
	}
	b := &openBlock{index: d.next, typ: bt, id: ev.ContentBlock.ID, name: ev.ContentBlock.Name}
	d.next++
	d.blocks[*ev.Index] = b
	return d.emit(model.Chunk{Type: model.BlockStart, Index: b.index, BlockType: bt})
}

func (d *decoder) delta(ev event) error {
	if ev.Index == nil || ev.Delta == nil {
		return streamError("content_block_delta without index or delta")
	}
	b := d.blocks[*ev.Index]
	if b == nil {
		return nil
	}
	dl := ev.Delta
	switch {
	case dl.Type == "text_delta" && dl.Text != nil:
		return d.emit(model.Chunk{Type: model.TextDelta, Index: b.index, Text: *dl.Text})
	case dl.Type == "thinking_delta" && dl.Thinking != nil:
		return d.emit(model.Chunk{Type: model.ReasoningDelta, Index: b.index, Text: *dl.Thinking})
	case dl.Type == "input_json_delta" && dl.PartialJSON != nil:
		c := model.Chunk{Type: model.ToolCallDelta, Index: b.index, ID: b.id, ArgumentsDelta: *dl.PartialJSON}
		if !b.named {
			c.Name, b.named = b.name, true
		}
		return d.emit(c)
	}
	return nil // signature_delta, citations_delta, …
}

func (d *decoder) stopBlock(ev event) error {
	if ev.Index == nil || d.blocks[*ev.Index] == nil {
		return nil
	}
	b := d.blocks[*ev.Index]
	delete(d.blocks, *ev.Index)
	return d.emit(model.Chunk{Type: model.BlockEnd, Index: b.index})
}

// finish closes the blocks still open (a server that sent no
// content_block_stop), then emits the usage and the finish.
func (d *decoder) finish() error {
	for _, k := range slices.Sorted(maps.Keys(d.blocks)) {
		if err := d.stopBlock(event{Index: &k}); err != nil {
			return err
		}
	}
	if err := d.emit(model.Chunk{Type: model.Usage, InputTokens: d.usage.InputTokens, OutputTokens: d.usage.OutputTokens}); err != nil {
		return err
	}
	return d.emit(finishChunk(d.stop))
}

func finishChunk(stop string) model.Chunk {
	if r, ok := finishReasons[stop]; ok {
		return model.Chunk{Type: model.Finish, Reason: r}
	}
	return wire.ModelStop(stop)
}

// providerError returns the code of the error's type; a type not in the
// table gives fallback.
func (e *apiError) providerError(fallback string) *model.ProviderError {
	code := fallback
	for _, t := range errorTypes {
		if t.typ == e.Type {
			code = t.code
			break
		}
	}
	return &model.ProviderError{Code: code, Message: e.Message}
}

func streamError(msg string) *model.ProviderError {
	return &model.ProviderError{Code: model.CodeStream, Message: msg}
}

// ResponseError turns an error response into a provider error: the code
// of the body's error type, else of the status (wire.Code); the message
// from the body, else the status text and the start of the body.
func ResponseError(status int, statusText string, body []byte) *model.ProviderError {
	var ev event
	if json.Unmarshal(body, &ev) == nil && ev.Error != nil && ev.Error.Message != "" {
		return ev.Error.providerError(wire.Code(status))
	}
	msg := "HTTP " + statusText
	if b := strings.TrimSpace(string(body)); b != "" {
		msg += ": " + wire.Truncate([]byte(b))
	}
	return &model.ProviderError{Code: wire.Code(status), Message: msg}
}

// DecodeJSON reads a non-streamed message and calls emit with its chunks:
// a block per content block with its whole content as one delta (a
// tool_use's input as compact JSON), the usage and the finish.
func DecodeJSON(body []byte, emit func(model.Chunk) error) error {
	var m message
	if err := json.Unmarshal(body, &m); err != nil || m.StopReason == nil {
		return streamError(fmt.Sprintf("bad message %s", wire.Truncate(body)))
	}
	d := &decoder{emit: emit, blocks: map[int]*openBlock{}, usage: m.Usage, stop: *m.StopReason}
	for _, b := range m.Content {
		bt, ok := blockTypes[b.Type]
		if !ok {
			continue
		}
		c := model.Chunk{Index: d.next}
		switch bt {
		case model.BlockText:
			c.Type, c.Text = model.TextDelta, deref(b.Text)
		case model.BlockReasoning:
			c.Type, c.Text = model.ReasoningDelta, deref(b.Thinking)
		default:
			var buf bytes.Buffer
			if json.Compact(&buf, b.Input) != nil {
				buf.Reset()
			}
			c.Type, c.ID, c.Name, c.ArgumentsDelta = model.ToolCallDelta, b.ID, b.Name, buf.String()
		}
		for _, x := range []model.Chunk{{Type: model.BlockStart, Index: d.next, BlockType: bt}, c, {Type: model.BlockEnd, Index: d.next}} {
			if err := emit(x); err != nil {
				return err
			}
		}
		d.next++
	}
	return d.finish()
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
