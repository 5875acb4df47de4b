package llmreplay

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/acpsnap/acpsnap/llmreplay/wire"
	"github.com/acpsnap/acpsnap/llmreplay/wire/anthropic"
	"github.com/acpsnap/acpsnap/llmreplay/wire/openaichat"
	"github.com/acpsnap/acpsnap/llmreplay/wire/openairesponses"
	"github.com/acpsnap/acpsnap/llmreplay/wire/sse"
	"github.com/acpsnap/acpsnap/model"
)

// ModelStopFormat is the error text of a finish chunk for a model-side stop
// that has no finish reason of its own; see wire.ModelStopFormat.
const ModelStopFormat = wire.ModelStopFormat

// ModelStopReason returns the wire reason of a model-side error finish
// written with ModelStopFormat; see wire.ModelStopReason.
func ModelStopReason(c model.Chunk) (string, bool) { return wire.ModelStopReason(c) }

// Dialects lists the dialects a Server speaks, as ServerConfig.Dialect
// names them.
var Dialects = []string{wire.OpenAIChat, wire.OpenAIResponses, wire.AnthropicMessages}

// dialect is what the Server needs of one codec.
type dialect struct {
	calls      []string // path suffixes that are model calls
	countPath  string   // path suffix answered with a token count; "": none
	idPrefix   string   // of a response id, before its ordinal
	render     func(wire.Response) []sse.Event
	renderJSON func(wire.Response) (int, []byte)
	hang       func(id, model string) []sse.Event
	errorBody  func(code, msg string) (int, []byte)
	count      func(body []byte) []byte
}

var dialects = map[string]dialect{
	wire.OpenAIChat: {
		calls: []string{"/chat/completions"}, idPrefix: "chatcmpl-",
		render: openaichat.Render, renderJSON: openaichat.RenderJSON,
		hang: openaichat.RenderHang, errorBody: openaichat.ErrorBody,
	},
	wire.OpenAIResponses: {
		calls: []string{"/responses"}, idPrefix: "resp_",
		render: openairesponses.Render, renderJSON: openairesponses.RenderJSON,
		hang: openairesponses.RenderHang, errorBody: openairesponses.ErrorBody,
	},
	wire.AnthropicMessages: {
		calls: []string{"/v1/messages"}, countPath: "/v1/messages/count_tokens", idPrefix: "msg_",
		render: anthropic.Render, renderJSON: anthropic.RenderJSON,
		hang: anthropic.RenderHang, errorBody: anthropic.ErrorBody, count: anthropic.CountTokens,
	},
}

// lookupDialect returns the dialect named name ("": openai-chat).
func lookupDialect(name string) (dialect, error) {
	if name == "" {
		name = wire.OpenAIChat
	}
	d, ok := dialects[name]
	if !ok {
		return dialect{}, fmt.Errorf("unknown dialect %q (known: %s)", name, strings.Join(Dialects, ", "))
	}
	return d, nil
}

// route says what a path is to the dialect: a model call, a token count,
// or neither (404).
func (d dialect) route(path string) (call, count bool) {
	if d.countPath != "" && strings.HasSuffix(path, d.countPath) {
		return false, true
	}
	for _, p := range d.calls {
		if strings.HasSuffix(path, p) {
			return true, false
		}
	}
	return false, false
}

// writeError answers a request with the dialect's error status and body.
func (d dialect) writeError(w http.ResponseWriter, code, msg string) {
	status, body := d.errorBody(code, msg)
	writeBody(w, status, body)
}

func writeBody(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(body)
}

// stream writes events to w, flushing each one as the dialect's server
// would; it stops at the first write error (the client went away).
type stream struct {
	w     http.ResponseWriter
	flush func()
}

func newStream(w http.ResponseWriter) *stream {
	flush := func() {}
	if f, ok := w.(http.Flusher); ok {
		flush = f.Flush
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &stream{w: w, flush: flush}
}

func (s *stream) send(events []sse.Event) error {
	for _, ev := range events {
		if _, err := s.w.Write(ev.Bytes()); err != nil {
			return err
		}
		s.flush()
	}
	return nil
}
