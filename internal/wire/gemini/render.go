package gemini

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/acpsnap/acpsnap/internal/strictjson"
	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/sse"
	"github.com/acpsnap/acpsnap/model"
)

// RetryDelay is the RetryInfo delay of a RATE_LIMIT error body.
const RetryDelay = "1s"

// Render returns the events of r as a stream (see the package doc).
func Render(r wire.Response) []sse.Event {
	s := newRenderer(r)
	for _, c := range r.Chunks {
		if perr, ok := wire.Failure(c); ok {
			return append(s.events(), errorEvent(perr.Code, perr.Message))
		}
		s.chunk(c, true)
	}
	evs := s.events()
	if r.Err != nil {
		evs = append(evs, errorEvent(r.Err.Code, r.Err.Message))
	}
	return evs
}

// RenderHang returns the opening event of a stream, one empty text part,
// which parses into no chunk.
func RenderHang(id, modelName string) []sse.Event {
	empty := ""
	return []sse.Event{event(response{Candidates: []candidate{{Content: content{Parts: []part{{Text: &empty}}, Role: "model"}}},
		ModelVersion: modelName, ResponseID: id})}
}

// RenderJSON returns the status and body of r as a non-streamed answer:
// one candidate whose parts are the blocks, each with its whole content.
// A failing r answers with its error.
func RenderJSON(r wire.Response) (int, []byte) {
	if r.Err != nil {
		return ErrorBody(r.Err.Code, r.Err.Message)
	}
	s := newRenderer(r)
	for _, c := range r.Chunks {
		if perr, ok := wire.Failure(c); ok {
			return ErrorBody(perr.Code, perr.Message)
		}
		s.chunk(c, false)
	}
	one := response{ModelVersion: r.Model, ResponseID: r.ID, UsageMetadata: s.usage,
		Candidates: []candidate{{Content: content{Parts: []part{}, Role: "model"}, FinishReason: s.reason}}}
	for _, p := range s.parts {
		one.Candidates[0].Content.Parts = append(one.Candidates[0].Content.Parts, p...)
	}
	return http.StatusOK, marshal(one)
}

// ErrorBody returns the status and body that refuse a request with code:
// {"error":{"code":STATUS,"message":msg,"status":S,"details":[…]}} and a
// newline; details carry an ErrorInfo whose reason is code, and for
// RATE_LIMIT a RetryInfo.
func ErrorBody(code, msg string) (int, []byte) {
	status := wire.Status(code)
	return status, append(marshal(errorBody{Error: newAPIError(code, msg)}), '\n')
}

// CountTokens answers …:countTokens: {"totalTokens":N} with N a
// deterministic stand-in, a quarter of the request body's length rounded
// up.
func CountTokens(body []byte) []byte {
	return append(marshal(map[string]int{"totalTokens": (len(body) + 3) / 4}), '\n')
}

func newAPIError(code, msg string) *apiError {
	e := &apiError{Code: wire.Status(code), Message: msg, Status: statusOf(code),
		Details: []detail{{Type: errorInfoType, Reason: code, Domain: Domain}}}
	if code == model.CodeRateLimit {
		e.Details = append(e.Details, detail{Type: retryInfoType, RetryDelay: RetryDelay})
	}
	return e
}

// statusOf is the google.rpc status name of a code.
func statusOf(code string) string {
	switch code {
	case model.CodeAuth:
		return "UNAUTHENTICATED"
	case model.CodeRateLimit:
		return "RESOURCE_EXHAUSTED"
	case model.CodeUnavailable:
		return "UNAVAILABLE"
	case model.CodeBadRequest:
		return "INVALID_ARGUMENT"
	}
	return "INTERNAL"
}

// renderer collects the parts of one answer, a slice per event.
type renderer struct {
	r      wire.Response
	types  map[int]string // block index → block type
	args   map[int]*bytes.Buffer
	parts  [][]part    // streamed: one event each; JSON: one per block, joined
	open   map[int]int // JSON: block index → its position in parts
	usage  *usage
	reason string
}

func newRenderer(r wire.Response) *renderer {
	return &renderer{r: r, types: map[int]string{}, args: map[int]*bytes.Buffer{}, open: map[int]int{}}
}

// chunk adds c; streamed, each delta is an event of its own, else a
// block's deltas join into one part.
func (s *renderer) chunk(c model.Chunk, streamed bool) {
	switch c.Type {
	case model.BlockStart:
		s.types[c.Index] = c.BlockType
		if c.BlockType == model.BlockToolCall {
			s.args[c.Index] = &bytes.Buffer{}
		}
	case model.TextDelta, model.ReasoningDelta:
		s.text(c, streamed)
	case model.ToolCallDelta:
		if b := s.args[c.Index]; b != nil {
			b.WriteString(c.ArgumentsDelta)
		}
	case model.BlockEnd:
		if b := s.args[c.Index]; b != nil {
			_, name := wire.FirstCall(s.r.Chunks, c.Index) // no id: the live API sends none
			s.parts = append(s.parts, []part{{FunctionCall: &functionCall{Name: name, Args: args(b.Bytes())}}})
		}
	case model.Usage:
		s.usage = &usage{PromptTokenCount: c.InputTokens, CandidatesTokenCount: c.OutputTokens, TotalTokenCount: c.InputTokens + c.OutputTokens}
	case model.Finish:
		s.reason = finishReason(c)
	}
}

func (s *renderer) text(c model.Chunk, streamed bool) {
	thought := c.Type == model.ReasoningDelta
	if k, ok := s.open[c.Index]; ok && !streamed {
		t := *s.parts[k][0].Text + c.Text
		s.parts[k][0].Text = &t
		return
	}
	text := c.Text
	s.open[c.Index] = len(s.parts)
	s.parts = append(s.parts, []part{{Text: &text, Thought: thought}})
}

// events returns one event per part slice, the last one carrying the
// finish reason and usage (an empty text part when there is no part).
func (s *renderer) events() []sse.Event {
	if s.reason == "" && s.usage == nil {
		return s.eventsOf(s.parts)
	}
	parts := s.parts
	if len(parts) == 0 {
		empty := ""
		parts = [][]part{{{Text: &empty}}}
	}
	evs := s.eventsOf(parts[:len(parts)-1])
	last := s.response(parts[len(parts)-1])
	last.Candidates[0].FinishReason, last.UsageMetadata = s.reason, s.usage
	return append(evs, event(last))
}

func (s *renderer) eventsOf(parts [][]part) []sse.Event {
	var evs []sse.Event
	for _, p := range parts {
		evs = append(evs, event(s.response(p)))
	}
	return evs
}

func (s *renderer) response(p []part) response {
	return response{Candidates: []candidate{{Content: content{Parts: p, Role: "model"}}}, ModelVersion: s.r.Model, ResponseID: s.r.ID}
}

// finishReason is the candidate's finishReason of a finish chunk: STOP
// also after tool calls (Gemini has no reason of its own for them).
func finishReason(c model.Chunk) string {
	if reason, ok := wire.ModelStopReason(c); ok {
		return reason
	}
	if c.Reason == model.FinishMaxTokens {
		return reasonMaxTokens
	}
	return reasonStop
}

// args is a call's arguments as the API sends them, a whole object: the
// streamed deltas compacted, {} when they are not a JSON object.
func args(b []byte) json.RawMessage {
	var c bytes.Buffer
	if json.Compact(&c, b) != nil || !bytes.HasPrefix(c.Bytes(), []byte("{")) {
		return json.RawMessage("{}")
	}
	return c.Bytes()
}

func errorEvent(code, msg string) sse.Event {
	return event(errorBody{Error: newAPIError(code, msg)})
}

// event is one "data: JSON" event, ended with CRLF as the API ends them.
func event(v any) sse.Event {
	return sse.Event{Lines: []sse.Line{{Text: "data: " + string(marshal(v)), End: "\r\n"}}, End: "\r\n"}
}

// marshal encodes v without HTML escaping, as the API does (the values
// here always encode).
func marshal(v any) []byte {
	b, _ := strictjson.Encode(v)
	return b
}
