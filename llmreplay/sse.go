package llmreplay

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"

	"github.com/acpsnap/acpsnap/model"
)

// The OpenAI chat-completions streaming dialect, Server side: chunks in,
// SSE events out. See the dialect table in doc.go.

type wireChunk struct {
	ID      string       `json:"id"`
	Object  string       `json:"object"`
	Created int64        `json:"created"`
	Model   string       `json:"model"`
	Choices []wireChoice `json:"choices"`
	Usage   *wireUsage   `json:"usage,omitempty"`
}

type wireChoice struct {
	Index        int       `json:"index"`
	Delta        wireDelta `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
}

type wireDelta struct {
	Role             string         `json:"role,omitempty"`
	Content          *string        `json:"content,omitempty"`
	ReasoningContent *string        `json:"reasoning_content,omitempty"`
	ToolCalls        []wireToolCall `json:"tool_calls,omitempty"`
}

type wireToolCall struct {
	Index    int          `json:"index"`
	ID       string       `json:"id,omitempty"`
	Type     string       `json:"type,omitempty"`
	Function wireFunction `json:"function"`
}

type wireFunction struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type wireUsage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// wireError is the error object of an error body and of a mid-stream error
// event (which has no type).
type wireError struct {
	Message string `json:"message"`
	Type    string `json:"type,omitempty"`
	Code    string `json:"code"`
}

// wireFinish maps finish reasons to finish_reason values.
var wireFinish = map[string]string{model.FinishStop: "stop", model.FinishToolCalls: "tool_calls", model.FinishMaxTokens: "length"}

// errorStatus is the HTTP status a refused request (throw, accepted false)
// answers with, by error code.
func errorStatus(code string) int {
	switch code {
	case "AUTH":
		return http.StatusUnauthorized
	case "RATE_LIMIT":
		return http.StatusTooManyRequests
	case "UNAVAILABLE":
		return http.StatusServiceUnavailable
	case "BAD_REQUEST":
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// sseWriter writes one streamed response. model.Usage is held back until after
// the finish_reason event, where the dialect puts it.
type sseWriter struct {
	w     io.Writer
	flush func()
	id    string
	model string
	calls map[int]int // block index of a tool call → its ordinal k in the message
	usage *wireUsage
	ended bool // an error event ended the stream
}

func newSSEWriter(w http.ResponseWriter, id, model string) *sseWriter {
	flush := func() {}
	if f, ok := w.(http.Flusher); ok {
		flush = f.Flush
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sseWriter{w: w, flush: flush, id: id, model: model, calls: map[int]int{}}
}

// event writes one `data: <json>` event and flushes it.
func (s *sseWriter) event(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(s.w, "data: %s\n\n", b); err != nil {
		return err
	}
	s.flush()
	return nil
}

// delta writes a chunk event with one choice.
func (s *sseWriter) delta(d wireDelta, finish *string) error {
	return s.event(wireChunk{ID: s.id, Object: "chat.completion.chunk", Model: s.model,
		Choices: []wireChoice{{Delta: d, FinishReason: finish}}})
}

// chunk writes the event(s) of c, if any: block-start and block-end have no
// wire form, usage waits for the end.
func (s *sseWriter) chunk(c model.Chunk) error {
	switch c.Type {
	case model.TextDelta:
		return s.delta(wireDelta{Content: &c.Text}, nil)
	case model.ReasoningDelta:
		return s.delta(wireDelta{ReasoningContent: &c.Text}, nil)
	case model.ToolCallDelta:
		return s.delta(wireDelta{ToolCalls: []wireToolCall{s.toolCall(c)}}, nil)
	case model.Usage:
		s.usage = &wireUsage{c.InputTokens, c.OutputTokens, c.InputTokens + c.OutputTokens}
	case model.Finish:
		reason := wireFinish[c.Reason]
		if c.Reason == model.FinishError {
			var ok bool
			if reason, ok = ModelStopReason(c); !ok {
				code := c.Code
				if code == "" {
					code = "INTERNAL"
				}
				return s.fail(code, c.Error)
			}
		}
		if err := s.delta(wireDelta{}, &reason); err != nil {
			return err
		}
		return s.flushUsage()
	}
	return nil
}

// toolCall returns the wire form of a tool-call delta: id, type and name on
// the first delta of a call only.
func (s *sseWriter) toolCall(c model.Chunk) wireToolCall {
	k, seen := s.calls[c.Index]
	if !seen {
		k = len(s.calls)
		s.calls[c.Index] = k
		return wireToolCall{Index: k, ID: c.ID, Type: "function", Function: wireFunction{Name: c.Name, Arguments: c.ArgumentsDelta}}
	}
	return wireToolCall{Index: k, Function: wireFunction{Arguments: c.ArgumentsDelta}}
}

// flushUsage writes the held usage event, if any.
func (s *sseWriter) flushUsage() error {
	if s.usage == nil {
		return nil
	}
	u := s.usage
	s.usage = nil
	return s.event(wireChunk{ID: s.id, Object: "chat.completion.chunk", Model: s.model, Choices: []wireChoice{}, Usage: u})
}

// done ends a complete stream, unless an error event already ended it.
func (s *sseWriter) done() error {
	if s.ended {
		return nil
	}
	if err := s.flushUsage(); err != nil {
		return err
	}
	_, err := io.WriteString(s.w, "data: [DONE]\n\n")
	s.flush()
	return err
}

// fail ends a stream with a mid-stream error event and no [DONE].
func (s *sseWriter) fail(code, message string) error {
	if err := s.flushUsage(); err != nil {
		return err
	}
	s.ended = true
	return s.event(map[string]wireError{"error": {Message: message, Code: code}})
}

// writeErrorBody answers a request with an error status and body.
func writeErrorBody(w http.ResponseWriter, status int, code, message string) {
	b, _ := json.Marshal(map[string]wireError{"error": {Message: message, Type: "api_error", Code: code}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// ModelStopFormat is the error text of a finish chunk for a model-side stop
// that has no finish reason of its own (content_filter,
// insufficient_system_resource, …): the live adapter writes it, the Server
// reads it back into the same wire finish_reason, so such a stop replays
// over HTTP as it was recorded.
const ModelStopFormat = "model stopped with finish_reason %q"

// ModelStopReason returns the wire finish_reason of a model-side error
// finish written with ModelStopFormat.
func ModelStopReason(c model.Chunk) (string, bool) {
	if c.Type != model.Finish || c.Reason != model.FinishError || c.Code != "" {
		return "", false
	}
	var reason string
	if _, err := fmt.Sscanf(c.Error, ModelStopFormat, &reason); err != nil || fmt.Sprintf(ModelStopFormat, reason) != c.Error {
		return "", false
	}
	return reason, true
}
