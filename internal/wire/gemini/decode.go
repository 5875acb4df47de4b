package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/model"
)

// Decode reads a streamed answer to the event with a finish reason and
// calls emit with its chunks (see the package doc). It returns nil after
// the finish chunk, the error of emit as is, or a *model.ProviderError:
// STREAM when the body ends or breaks first or an event is not JSON, the
// code of an error event.
func Decode(body io.Reader, emit func(model.Chunk) error) error {
	d := &decoder{emit: emit, open: -1}
	return wire.ReadEvents(body, "a finish reason", func(data []byte) (bool, error) {
		var r response
		if err := json.Unmarshal(data, &r); err != nil {
			return false, streamError(fmt.Sprintf("bad stream event %s: %v", wire.Truncate(data), err))
		}
		return d.response(r)
	})
}

// DecodeJSON reads a non-streamed answer and calls emit with its chunks:
// a block per part, the usage and the finish.
func DecodeJSON(body []byte, emit func(model.Chunk) error) error {
	var r response
	if err := json.Unmarshal(body, &r); err != nil || len(r.Candidates) == 0 || r.Candidates[0].FinishReason == "" {
		return streamError(fmt.Sprintf("bad response %s", wire.Truncate(body)))
	}
	d := &decoder{emit: emit, open: -1, whole: true}
	_, err := d.response(r)
	return err
}

// ResponseError turns an error response into a provider error: the code
// of the body's acpsnap ErrorInfo, else of the status (wire.Code); the
// message from the body, else the status text and the start of the body.
func ResponseError(status int, statusText string, body []byte) *model.ProviderError {
	var b errorBody
	if json.Unmarshal(body, &b) == nil && b.Error != nil && b.Error.Message != "" {
		return b.Error.providerError(wire.Code(status))
	}
	msg := "HTTP " + statusText
	if t := strings.TrimSpace(string(body)); t != "" {
		msg += ": " + wire.Truncate([]byte(t))
	}
	return &model.ProviderError{Code: wire.Code(status), Message: msg}
}

// providerError is e as a provider error: the code its ErrorInfo names,
// else fallback.
func (e *apiError) providerError(fallback string) *model.ProviderError {
	code := fallback
	for _, d := range e.Details {
		if d.Type == errorInfoType && d.Domain == Domain && wire.IsCode(d.Reason) {
			code = d.Reason
		}
	}
	return &model.ProviderError{Code: code, Message: e.Message}
}

func streamError(msg string) *model.ProviderError {
	return &model.ProviderError{Code: model.CodeStream, Message: msg}
}

// decoder turns the responses of one answer into chunks: consecutive text
// parts of one kind are one block, each function call a block of its own.
type decoder struct {
	emit  func(model.Chunk) error
	whole bool   // non-streamed: every part is a whole block
	open  int    // index of the open block; -1: none
	typ   string // its block type
	next  int
	calls bool
	usage *usage
}

// response handles one response and reports whether it ended the answer.
func (d *decoder) response(r response) (bool, error) {
	if r.Error != nil {
		return false, r.Error.providerError(wire.Code(r.Error.Code))
	}
	if r.UsageMetadata != nil {
		d.usage = r.UsageMetadata
	}
	if len(r.Candidates) == 0 {
		return false, nil
	}
	c := r.Candidates[0]
	for _, p := range c.Content.Parts {
		if err := d.part(p); err != nil {
			return false, err
		}
	}
	if c.FinishReason == "" {
		return false, nil
	}
	return true, d.finish(c.FinishReason)
}

func (d *decoder) part(p part) error {
	switch {
	case p.FunctionCall != nil:
		var args bytes.Buffer
		if json.Compact(&args, p.FunctionCall.Args) != nil {
			args.WriteString("{}")
		}
		d.calls = true
		if err := d.start(model.BlockToolCall); err != nil {
			return err
		}
		fc := p.FunctionCall
		if err := d.emit(model.Chunk{Type: model.ToolCallDelta, Index: d.open, ID: fc.ID, Name: fc.Name, ArgumentsDelta: args.String()}); err != nil {
			return err
		}
		return d.end()
	case p.Text != nil && *p.Text != "":
		typ, delta := model.BlockText, model.TextDelta
		if p.Thought {
			typ, delta = model.BlockReasoning, model.ReasoningDelta
		}
		if d.open < 0 || d.typ != typ || d.whole {
			if err := d.start(typ); err != nil {
				return err
			}
		}
		return d.emit(model.Chunk{Type: delta, Index: d.open, Text: *p.Text})
	}
	return nil // an empty text part, or one acpsnap has no chunk for
}

// start ends the open block and opens one of typ.
func (d *decoder) start(typ string) error {
	if err := d.end(); err != nil {
		return err
	}
	d.open, d.typ = d.next, typ
	d.next++
	return d.emit(model.Chunk{Type: model.BlockStart, Index: d.open, BlockType: typ})
}

func (d *decoder) end() error {
	if d.open < 0 {
		return nil
	}
	i := d.open
	d.open = -1
	return d.emit(model.Chunk{Type: model.BlockEnd, Index: i})
}

// finish ends the open block and emits the usage and the finish of reason.
func (d *decoder) finish(reason string) error {
	if err := d.end(); err != nil {
		return err
	}
	if u := d.usage; u != nil {
		if err := d.emit(model.Chunk{Type: model.Usage, InputTokens: u.PromptTokenCount, OutputTokens: u.CandidatesTokenCount + u.ThoughtsTokenCount}); err != nil {
			return err
		}
	}
	f := model.Chunk{Type: model.Finish, Reason: model.FinishStop}
	switch {
	case reason == reasonStop && d.calls:
		f.Reason = model.FinishToolCalls
	case reason == reasonMaxTokens:
		f.Reason = model.FinishMaxTokens
	case reason != reasonStop:
		f = wire.ModelStop(reason)
	}
	return d.emit(f)
}
