package deepseek

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/acpsnap/acpsnap/llmreplay"
	"github.com/acpsnap/acpsnap/model"
)

// event is one data event of a chat-completion stream: a delta, a usage
// report or an error. Fields the adapter does not use are not decoded.
type event struct {
	Choices []choice  `json:"choices"`
	Usage   *usage    `json:"usage"`
	Error   *apiError `json:"error"`
}

type choice struct {
	Index int `json:"index"`
	Delta struct {
		Content          string          `json:"content"`
		ReasoningContent string          `json:"reasoning_content"`
		ToolCalls        []toolCallDelta `json:"tool_calls"`
	} `json:"delta"`
	FinishReason string `json:"finish_reason"`
}

type toolCallDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
}

// finishReasons maps the API's finish_reason to the chunk's; any other
// value ends the message with a finish{reason: error}.
var finishReasons = map[string]string{
	"stop":       model.FinishStop,
	"tool_calls": model.FinishToolCalls,
	"length":     model.FinishMaxTokens,
}

// decoder turns the events of one stream into canonical chunks: one open
// block at a time, block indices 0, 1, 2… in order of appearance, a block
// closed when the next one starts, and at [DONE] the block-end of the open
// block, the usage (if any) and the finish.
type decoder struct {
	emit    func(model.Chunk) error
	emitErr error // the error emit returned, if any: passed through as is

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

func newDecoder(emit func(model.Chunk) error) *decoder {
	return &decoder{emit: emit, open: -1, calls: map[int]*call{}}
}

// run reads the SSE body to [DONE]. It returns nil after the finish chunk,
// the emit error as is, or a *model.ProviderError: STREAM when the body
// ends or breaks before [DONE], or the code of an error event.
func (d *decoder) run(body io.Reader) error {
	events := newSSEReader(body)
	for {
		data, err := events.Next()
		if err == io.EOF {
			return streamError("stream ended before [DONE]")
		}
		if err != nil {
			return streamError("read stream: " + err.Error())
		}
		if string(bytes.TrimSpace(data)) == "[DONE]" {
			return d.end()
		}
		if err := d.event(data); err != nil {
			return err
		}
	}
}

// event handles one data event.
func (d *decoder) event(data []byte) error {
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		return streamError(fmt.Sprintf("bad stream event %s: %v", truncate(data), err))
	}
	if ev.Error != nil {
		return ev.Error.providerError("STREAM")
	}
	for _, c := range ev.Choices {
		if c.Index != 0 {
			continue // only one choice is ever requested
		}
		if err := d.delta(c); err != nil {
			return err
		}
		if c.FinishReason != "" {
			d.finish = c.FinishReason
		}
	}
	if ev.Usage != nil {
		d.usage = ev.Usage
	}
	return nil
}

// delta emits the chunks of one choice delta: reasoning, then text, then
// tool calls. Empty text and reasoning (DeepSeek opens every message with
// content "") start no block.
func (d *decoder) delta(c choice) error {
	if err := d.text(model.BlockReasoning, model.ReasoningDelta, c.Delta.ReasoningContent); err != nil {
		return err
	}
	if err := d.text(model.BlockText, model.TextDelta, c.Delta.Content); err != nil {
		return err
	}
	for _, tc := range c.Delta.ToolCalls {
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
	return d.send(model.Chunk{Type: chunkType, Index: d.open, Text: text})
}

// toolCall emits one tool-call delta. Deltas are keyed by the call's
// index in the message; the id (sent once by the API) is repeated on every
// chunk, the name is emitted once.
func (d *decoder) toolCall(tc toolCallDelta) error {
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
	return d.send(model.Chunk{Type: model.ToolCallDelta, Index: d.open, ID: c.id, Name: name, ArgumentsDelta: tc.Function.Arguments})
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
	return d.send(model.Chunk{Type: model.BlockStart, Index: d.open, BlockType: blockType})
}

func (d *decoder) closeBlock() error {
	if d.open < 0 {
		return nil
	}
	i := d.open
	d.open = -1
	return d.send(model.Chunk{Type: model.BlockEnd, Index: i})
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
		if err := d.send(model.Chunk{Type: model.Usage, InputTokens: d.usage.PromptTokens, OutputTokens: d.usage.CompletionTokens}); err != nil {
			return err
		}
	}
	fin := model.Chunk{Type: model.Finish, Reason: finishReasons[d.finish]}
	if fin.Reason == "" {
		fin.Reason, fin.Error = model.FinishError, fmt.Sprintf(llmreplay.ModelStopFormat, d.finish)
	}
	return d.send(fin)
}

// send calls emit and remembers its error so that Stream returns it as is.
func (d *decoder) send(c model.Chunk) error {
	if err := d.emit(c); err != nil {
		d.emitErr = err
		return err
	}
	return nil
}
