package openaichat

import (
	"encoding/json"
	"fmt"
	"mime"
	"strings"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/model"
)

// providerError returns the error with its own code when it is one of
// ours, else with fallback.
func (e *apiError) providerError(fallback string) *model.ProviderError {
	var code string
	if json.Unmarshal(e.Code, &code) != nil || !wire.IsCode(code) {
		code = fallback
	}
	return &model.ProviderError{Code: code, Message: e.Message}
}

func streamError(msg string) *model.ProviderError {
	return &model.ProviderError{Code: model.CodeStream, Message: msg}
}

// IsEventStream reports whether a 200 response's Content-Type announces a
// stream: text/event-stream, or no Content-Type at all.
func IsEventStream(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

// ResponseError turns an error response (or a 200 that is not the event
// stream asked for, with its Content-Type) into a provider error: the
// code of the body's error when it is one of ours, else the status's
// (wire.Code); the message from the body's error.message, else the status
// text and the start of the body.
func ResponseError(status int, statusText, contentType string, body []byte) *model.ProviderError {
	var env struct {
		Error *apiError `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error != nil && env.Error.Message != "" {
		return env.Error.providerError(wire.Code(status))
	}
	msg := fmt.Sprintf("HTTP %s", statusText)
	if status == 200 {
		msg += fmt.Sprintf(" with Content-Type %q, not text/event-stream", contentType)
	}
	if b := strings.TrimSpace(string(body)); b != "" {
		msg += ": " + wire.Truncate([]byte(b))
	}
	return &model.ProviderError{Code: wire.Code(status), Message: msg}
}
