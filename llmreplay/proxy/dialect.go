package proxy

import (
	"net/http"

	"github.com/acpsnap/acpsnap/internal/jsonl"
)

// dialect is what the proxy needs to know of a model API: how the real key
// is sent upstream and how a non-retryable error looks to the agent's SDK.
// Where a request's conversation lives is sessionlog.Conversation.
type dialect struct {
	setKey    func(h http.Header, key string)
	errorBody func(msg string) []byte
}

var dialects = map[string]dialect{
	"openai-chat":        {setKey: bearer, errorBody: openAIError},
	"openai-responses":   {setKey: bearer, errorBody: openAIError},
	"anthropic-messages": {setKey: anthropicKey, errorBody: anthropicError},
}

func bearer(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) }

func anthropicKey(h http.Header, key string) { h.Set("X-Api-Key", key) }

// ErrorCode marks every error body the proxy itself answers with (a
// request drift, an override without a body).
const ErrorCode = "acpsnap_request_drift"

func openAIError(msg string) []byte {
	b, _ := jsonl.Value(map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "code": ErrorCode, "param": nil, "acpsnap": true,
	}})
	return b
}

func anthropicError(msg string) []byte {
	b, _ := jsonl.Value(map[string]any{"type": "error", "error": map[string]any{
		"type": "invalid_request_error", "message": msg, "acpsnap": true,
	}})
	return b
}

// secretHeaders never travel upstream from the agent and are never kept.
var secretHeaders = map[string]bool{
	"authorization": true, "x-api-key": true, "api-key": true, "proxy-authorization": true,
	"cookie": true, "x-goog-api-key": true,
}

// hopHeaders are per-connection headers that a proxy does not forward;
// content-length and accept-encoding are the transport's to set (it asks
// for gzip itself and hands back the body decoded).
var hopHeaders = map[string]bool{
	"connection": true, "keep-alive": true, "proxy-connection": true, "te": true, "trailer": true,
	"transfer-encoding": true, "upgrade": true, "host": true, "content-length": true,
	"accept-encoding": true,
}

// DefaultRequestHeaders and DefaultResponseHeaders are the headers kept
// with every exchange (lower case); Config adds to them.
var (
	DefaultRequestHeaders  = []string{"content-type", "anthropic-version", "anthropic-beta", "openai-beta"}
	DefaultResponseHeaders = []string{"content-type", "retry-after", "retry-after-ms", "x-should-retry"} // what SDKs retry by
)

// DefaultUpstream is a dialect's public endpoint, as its SDKs spell the
// base URL: the agent's path below the proxy URL is appended to it
// ("/responses" → https://api.openai.com/v1/responses, "/v1/messages" →
// https://api.anthropic.com/v1/messages). "" for an unknown dialect.
func DefaultUpstream(dialect string) string {
	switch dialect {
	case "openai-chat", "openai-responses":
		return "https://api.openai.com/v1"
	case "anthropic-messages":
		return "https://api.anthropic.com"
	}
	return ""
}
