package deepseek

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/model"
)

// codes are the provider error codes of model.ProviderError. An API
// error that carries one of them as its code (the replay Server does) keeps
// it; any other code is mapped (see httpError and apiError.providerError).
var codes = map[string]bool{
	"AUTH": true, "RATE_LIMIT": true, "UNAVAILABLE": true, "BAD_REQUEST": true,
	"STREAM": true, "REPLAY": true, "INTERNAL": true,
}

// apiError is the "error" object of an OpenAI-compatible error body or
// error event. Code is a string for DeepSeek and the replay Server, but
// some compatible servers send a number or null.
type apiError struct {
	Message string          `json:"message"`
	Code    json.RawMessage `json:"code"`
}

// providerError returns the error with its own code when it is one of ours,
// else with fallback.
func (e *apiError) providerError(fallback string) *model.ProviderError {
	var code string
	if json.Unmarshal(e.Code, &code) != nil || !codes[code] {
		code = fallback
	}
	return &model.ProviderError{Code: code, Message: e.Message}
}

// statusCode maps an HTTP error status to a provider error code.
func statusCode(status int) string {
	switch {
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return "AUTH"
	case status == http.StatusTooManyRequests:
		return "RATE_LIMIT"
	case status >= 500:
		return "UNAVAILABLE"
	default:
		return "BAD_REQUEST"
	}
}

// maxErrorBody bounds how much of an error response is read.
const maxErrorBody = 64 << 10

// isEventStream reports whether a 200 response's Content-Type announces a
// stream: text/event-stream, or no Content-Type at all.
func isEventStream(contentType string) bool {
	if contentType == "" {
		return true
	}
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "text/event-stream"
}

// httpError turns a non-200 response, or a 200 response that is not an
// event stream, into a provider error: the code by status (or the body's
// code when it is one of ours), the message from the body's error.message,
// else the status text (and, for a 200, the unexpected Content-Type) and
// the start of the body.
func httpError(resp *http.Response) *model.ProviderError {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	var env struct {
		Error *apiError `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && env.Error != nil && env.Error.Message != "" {
		return env.Error.providerError(statusCode(resp.StatusCode))
	}
	msg := fmt.Sprintf("HTTP %s", resp.Status)
	if resp.StatusCode == http.StatusOK {
		msg += fmt.Sprintf(" with Content-Type %q, not text/event-stream", resp.Header.Get("Content-Type"))
	}
	if b := strings.TrimSpace(string(body)); b != "" {
		msg += ": " + truncate([]byte(b))
	}
	return &model.ProviderError{Code: statusCode(resp.StatusCode), Message: msg}
}

func streamError(msg string) *model.ProviderError {
	return &model.ProviderError{Code: "STREAM", Message: msg}
}

// truncate shortens b to about 200 bytes for an error message, on a rune
// boundary.
func truncate(b []byte) string {
	const max = 200
	if len(b) <= max {
		return string(b)
	}
	n := max
	for n > 0 && !utf8.RuneStart(b[n]) {
		n--
	}
	return string(b[:n]) + "…"
}
