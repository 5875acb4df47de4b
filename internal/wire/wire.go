package wire

import (
	"fmt"
	"io"
	"net/http"

	"github.com/acpsnap/acpsnap/internal/wire/sse"
	"github.com/acpsnap/acpsnap/model"
)

// Codec is one dialect's codec, both directions (the table in
// internal/wire/dialect holds each dialect's).
type Codec struct {
	Render     func(Response) []sse.Event           // a streamed answer
	RenderJSON func(Response) (int, []byte)         // a non-streamed answer: status and body
	RenderHang func(id, model string) []sse.Event   // the opening events of a stream that then stalls
	ErrorBody  func(code, msg string) (int, []byte) // a refusal: status and body
	Decode     func(io.Reader, func(model.Chunk) error) error
	DecodeJSON func([]byte, func(model.Chunk) error) error
	// CountTokens answers a token-count request; nil: the dialect has none.
	CountTokens func(body []byte) []byte
}

// SpawnedByHeader is the request header that routes a model call to a
// child script: its value is the id of the tool call that spawned the
// calling session.
const SpawnedByHeader = "X-Acpsnap-Spawned-By"

// Response is one scripted answer to a model call.
type Response struct {
	ID     string        // the response's id in the dialect ("chatcmpl-1", "resp_1", "msg_1")
	Model  string        // the model name to echo
	Chunks []model.Chunk // in the canonical order of model.Chunk
	// Err, when set, fails the stream after Chunks (which then hold no
	// finish): the provider accepted the request and broke off mid-way.
	Err *model.ProviderError
}

// statuses is the one table between codes and HTTP statuses: Status reads
// it left to right, Code right to left.
var statuses = []struct {
	code   string
	status int
	match  func(status int) bool
}{
	{model.CodeAuth, http.StatusUnauthorized, func(s int) bool { return s == 401 || s == 403 }},
	{model.CodeRateLimit, http.StatusTooManyRequests, func(s int) bool { return s == 429 }},
	{model.CodeUnavailable, http.StatusServiceUnavailable, func(s int) bool { return s >= 500 }},
	{model.CodeBadRequest, http.StatusBadRequest, func(s int) bool { return true }},
}

// Status returns the HTTP status a request refused with code answers
// with: 500 for a code not in the table.
func Status(code string) int {
	for _, s := range statuses {
		if s.code == code {
			return s.status
		}
	}
	return http.StatusInternalServerError
}

// Code returns the code of an HTTP error status whose body names none of
// ours.
func Code(status int) string {
	for _, s := range statuses {
		if s.match(status) {
			return s.code
		}
	}
	return model.CodeBadRequest
}

// IsCode reports whether s is one of the provider error codes.
func IsCode(s string) bool {
	switch s {
	case model.CodeAuth, model.CodeRateLimit, model.CodeUnavailable, model.CodeBadRequest,
		model.CodeStream, model.CodeReplay, model.CodeInternal:
		return true
	}
	return false
}

// ModelStopFormat is the error text of a finish chunk for a model-side stop
// that has no finish reason of its own (content_filter, refusal,
// insufficient_system_resource, …): a live provider writes it with the
// dialect's own reason, and a codec renders it back into that reason, so
// such a stop replays over HTTP as it was recorded.
const ModelStopFormat = "model stopped with finish_reason %q"

// ModelStopReason returns the dialect's reason of a model-side error finish
// written with ModelStopFormat.
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

// ModelStop returns the finish chunk of a model-side stop with the
// dialect's reason.
func ModelStop(reason string) model.Chunk {
	return model.Chunk{Type: model.Finish, Reason: model.FinishError, Error: fmt.Sprintf(ModelStopFormat, reason)}
}

// Failure returns the provider error an error finish stands for, when
// it is not a model-side stop: the finish's code ("INTERNAL" when it has
// none) and message.
func Failure(c model.Chunk) (*model.ProviderError, bool) {
	if c.Type != model.Finish || c.Reason != model.FinishError {
		return nil, false
	}
	if _, ok := ModelStopReason(c); ok {
		return nil, false
	}
	code := c.Code
	if code == "" {
		code = model.CodeInternal
	}
	return &model.ProviderError{Code: code, Message: c.Error}, true
}

// FirstCall returns the id and name of the first tool-call delta of block
// index in chunks: dialects that name a call when its block opens look
// ahead with it.
func FirstCall(chunks []model.Chunk, index int) (id, name string) {
	for _, c := range chunks {
		if c.Type == model.ToolCallDelta && c.Index == index {
			return c.ID, c.Name
		}
	}
	return "", ""
}

// Truncate shortens b to about 200 bytes for an error message, on a rune
// boundary.
func Truncate(b []byte) string {
	const max = 200
	if len(b) <= max {
		return string(b)
	}
	n := max
	for n > 0 && b[n]&0xC0 == 0x80 {
		n--
	}
	return string(b[:n]) + "…"
}

// ReadEvents reads the server-sent events of body and calls handle with
// the data of each dispatched one until handle reports the stream done or
// fails. The stream ending first is a STREAM error saying it ended before
// end (the dialect's last event), as is a read error.
func ReadEvents(body io.Reader, end string, handle func(data []byte) (done bool, err error)) error {
	events := sse.NewReader(body)
	for {
		ev, err := events.Next()
		if err == io.EOF {
			return &model.ProviderError{Code: model.CodeStream, Message: "stream ended before " + end}
		}
		if err != nil {
			return &model.ProviderError{Code: model.CodeStream, Message: "read stream: " + err.Error()}
		}
		if !ev.HasData() {
			continue
		}
		if done, err := handle([]byte(ev.Data())); err != nil || done {
			return err
		}
	}
}
