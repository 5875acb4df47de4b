package proxy

import (
	"net/http"

	"github.com/acpsnap/acpsnap/llmreplay/wire"
	"github.com/acpsnap/acpsnap/llmreplay/wire/anthropic"
	"github.com/acpsnap/acpsnap/llmreplay/wire/openaichat"
	"github.com/acpsnap/acpsnap/llmreplay/wire/openairesponses"
)

// dialect is what the proxy needs to know of a model API: how the real key
// is sent upstream and how an error body looks to the agent's SDK (the
// dialect codec's). Where a request's conversation lives is
// sessionlog.Conversation.
type dialect struct {
	setKey    func(h http.Header, key string)
	errorBody func(code, msg string) (int, []byte)
	endpoints []string // "METHOD /path": what goes upstream with the key, under any prefix
}

var dialects = map[string]dialect{
	wire.OpenAIChat:        {setKey: bearer, errorBody: openaichat.ErrorBody, endpoints: []string{"POST /chat/completions"}},
	wire.OpenAIResponses:   {setKey: bearer, errorBody: openairesponses.ErrorBody, endpoints: []string{"POST /responses"}},
	wire.AnthropicMessages: {setKey: anthropicKey, errorBody: anthropic.ErrorBody, endpoints: []string{"POST /v1/messages", "POST /v1/messages/count_tokens"}},
}

func bearer(h http.Header, key string) { h.Set("Authorization", "Bearer "+key) }

func anthropicKey(h http.Header, key string) { h.Set("X-Api-Key", key) }

// ErrorHeader marks every answer the proxy makes itself (a drift, an
// override without a body, an unreachable upstream); its value says which.
// The body is the dialect's error body, its message starting "acpsnap: ".
const ErrorHeader = "X-Acpsnap-Error"

// ownError is the body of one of the proxy's own answers with status.
func (d dialect) ownError(status int, msg string) []byte {
	_, b := d.errorBody(wire.Code(status), "acpsnap: "+msg)
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
