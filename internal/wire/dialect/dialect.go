// Package dialect is the one table of the model dialects acpsnap speaks:
// for each, its name, its model endpoints, its response ids, how the live
// key travels, the variables a record run reads, where a request keeps its
// conversation and system prompt, and its codec. Every other package ranges
// over Table or asks Lookup; adding a dialect is an entry here plus a codec
// package beside internal/wire/openaichat (docs/format.md, "Dialects").
package dialect

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/anthropic"
	"github.com/acpsnap/acpsnap/internal/wire/gemini"
	"github.com/acpsnap/acpsnap/internal/wire/openaichat"
	"github.com/acpsnap/acpsnap/internal/wire/openairesponses"
)

// Dialect is one model API as acpsnap speaks it.
type Dialect struct {
	Name  string // as acpsnap.yml and `acpsnap serve-model -dialect` spell it
	Title string // for people: "OpenAI chat completions"
	// Endpoints are the model endpoints an agent calls, below its base URL.
	Endpoints []Endpoint
	IDPrefix  string // of a scripted response's id, before its ordinal
	// KeyHeader carries the live key upstream, after KeyPrefix.
	KeyHeader, KeyPrefix string
	// KeyQuery is the query parameter an agent may pass its key in
	// instead of KeyHeader (Gemini's REST docs: "?key=…"); "": none. A
	// proxy treats it as it treats the header: never kept, never
	// forwarded, the live key sent upstream in KeyHeader (WithoutKey).
	KeyQuery string
	// Upstream is the public base URL, as the dialect's SDKs spell it: an
	// endpoint's path is appended to it.
	Upstream string
	// URLEnv and KeyEnv name the variables of the live model a record run
	// reads; of KeyEnv the first one set wins.
	URLEnv string
	KeyEnv []string
	// Conversation is the top-level request member holding the
	// conversation array ("messages").
	Conversation string
	// System is where a request holds its system prompt: a JSON pointer to
	// a string, and, when SystemRoles is set, the object holding it must
	// have a "role" member with one of these values.
	System      string
	SystemRoles []string
	// RequestHeaders are the dialect's own headers an exchange keeps
	// ("anthropic-version").
	RequestHeaders []string
	Codec          wire.Codec
}

// Endpoint is one model endpoint.
type Endpoint struct {
	Method string // "POST"
	// Path is the path below the base URL; "{model}" stands for one path
	// segment, the model's name.
	Path string
	Kind Kind
	// Stream says whether a call streams.
	Stream Stream
}

// Kind is what an endpoint answers.
type Kind int

const (
	Call  Kind = iota // a model call: takes the next response
	Count             // a token count: answered from the request alone
)

// Stream says how a call asks for a streamed answer.
type Stream int

const (
	StreamMember Stream = iota // the body's "stream": false asks for JSON; anything else streams
	Streamed                   // always streamed (the endpoint says so)
	NotStreamed                // always one JSON body
)

// Table lists the dialects, in the order help texts and errors name them.
var Table = []*Dialect{
	{
		Name: "openai-chat", Title: "OpenAI chat completions",
		Endpoints: []Endpoint{{Method: http.MethodPost, Path: "/chat/completions"}},
		IDPrefix:  "chatcmpl-", KeyHeader: "Authorization", KeyPrefix: "Bearer ",
		Upstream: "https://api.openai.com/v1", URLEnv: "OPENAI_BASE_URL", KeyEnv: []string{"OPENAI_API_KEY"},
		Conversation: "messages", System: "/messages/0/content", SystemRoles: []string{"system", "developer"},
		RequestHeaders: []string{"openai-beta"},
		Codec: wire.Codec{
			Render: openaichat.Render, RenderJSON: openaichat.RenderJSON, RenderHang: openaichat.RenderHang,
			ErrorBody: openaichat.ErrorBody, Decode: openaichat.Decode, DecodeJSON: openaichat.DecodeJSON,
		},
	},
	{
		Name: "openai-responses", Title: "OpenAI Responses",
		Endpoints: []Endpoint{{Method: http.MethodPost, Path: "/responses"}},
		IDPrefix:  "resp_", KeyHeader: "Authorization", KeyPrefix: "Bearer ",
		Upstream: "https://api.openai.com/v1", URLEnv: "OPENAI_BASE_URL", KeyEnv: []string{"OPENAI_API_KEY"},
		Conversation: "input", System: "/instructions",
		RequestHeaders: []string{"openai-beta"},
		Codec: wire.Codec{
			Render: openairesponses.Render, RenderJSON: openairesponses.RenderJSON, RenderHang: openairesponses.RenderHang,
			ErrorBody: openairesponses.ErrorBody, Decode: openairesponses.Decode, DecodeJSON: openairesponses.DecodeJSON,
		},
	},
	{
		Name: "anthropic-messages", Title: "Anthropic Messages",
		Endpoints: []Endpoint{
			{Method: http.MethodPost, Path: "/v1/messages"},
			{Method: http.MethodPost, Path: "/v1/messages/count_tokens", Kind: Count},
		},
		IDPrefix: "msg_", KeyHeader: "X-Api-Key",
		Upstream: "https://api.anthropic.com", URLEnv: "ANTHROPIC_BASE_URL", KeyEnv: []string{"ANTHROPIC_API_KEY"},
		Conversation: "messages", System: "/system",
		RequestHeaders: []string{"anthropic-version", "anthropic-beta"},
		Codec: wire.Codec{
			Render: anthropic.Render, RenderJSON: anthropic.RenderJSON, RenderHang: anthropic.RenderHang,
			ErrorBody: anthropic.ErrorBody, Decode: anthropic.Decode, DecodeJSON: anthropic.DecodeJSON,
			CountTokens: anthropic.CountTokens,
		},
	},
	{
		Name: "gemini-generate-content", Title: "Gemini generateContent",
		Endpoints: []Endpoint{
			{Method: http.MethodPost, Path: "/v1beta/models/{model}:streamGenerateContent", Stream: Streamed}, // ?alt=sse
			{Method: http.MethodPost, Path: "/v1beta/models/{model}:generateContent", Stream: NotStreamed},
			{Method: http.MethodPost, Path: "/v1beta/models/{model}:countTokens", Kind: Count},
		},
		IDPrefix: "gen-", KeyHeader: "X-Goog-Api-Key", KeyQuery: "key",
		Upstream: "https://generativelanguage.googleapis.com",
		URLEnv:   "GOOGLE_GEMINI_BASE_URL", KeyEnv: []string{"GEMINI_API_KEY", "GOOGLE_API_KEY"},
		Conversation: "contents", System: "/systemInstruction/parts/0/text",
		Codec: wire.Codec{
			Render: gemini.Render, RenderJSON: gemini.RenderJSON, RenderHang: gemini.RenderHang,
			ErrorBody: gemini.ErrorBody, Decode: gemini.Decode, DecodeJSON: gemini.DecodeJSON,
			CountTokens: gemini.CountTokens,
		},
	},
}

// Default is the dialect of a scripted server configured with none.
var Default = Table[0]

// Lookup returns the dialect named name.
func Lookup(name string) (*Dialect, error) {
	for _, d := range Table {
		if d.Name == name {
			return d, nil
		}
	}
	return nil, fmt.Errorf("unknown dialect %q (want %s)", name, List(nil))
}

// Names returns the dialects' names in table order.
func Names() []string {
	names := make([]string, len(Table))
	for i, d := range Table {
		names[i] = d.Name
	}
	return names
}

// List names the dialects for a message, after extra: "a, b or c".
func List(extra []string) string {
	names := append(append([]string(nil), extra...), Names()...)
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// SetKey puts the live key into h, in the dialect's header.
func (d *Dialect) SetKey(h http.Header, key string) { h.Set(d.KeyHeader, d.KeyPrefix+key) }

// WithoutKey is the raw query rawQuery without the parameters that carry
// a key (KeyQuery), the others kept as they were written, in order.
func (d *Dialect) WithoutKey(rawQuery string) string {
	if d.KeyQuery == "" || rawQuery == "" {
		return rawQuery
	}
	var kept []string
	for _, p := range strings.Split(rawQuery, "&") {
		name, _, _ := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil && n == d.KeyQuery || name == d.KeyQuery {
			continue
		}
		kept = append(kept, p)
	}
	return strings.Join(kept, "&")
}

// Route returns the endpoint of a request path (the path below the base
// URL, under any prefix, decoded: as the upstream will read it) and the
// model its path names ("" when it names none); ok is false for a path
// that is no endpoint of the dialect, a model name with a character that
// would make a URL mean something else ("?", "#", "%", "\\", a space or a
// control character) included.
func (d *Dialect) Route(path string) (e Endpoint, model string, ok bool) {
	best := -1
	for i, ep := range d.Endpoints {
		if m, hit := ep.match(path); hit && (best < 0 || len(ep.Path) > len(d.Endpoints[best].Path)) {
			best, model = i, m
		}
	}
	if best < 0 {
		return Endpoint{}, "", false
	}
	return d.Endpoints[best], model, true
}

// match reports whether path ends with e's path, "{model}" matching one
// non-empty segment, and returns that segment.
func (e Endpoint) match(path string) (model string, ok bool) {
	pre, post, templated := strings.Cut(e.Path, "{model}")
	if !templated {
		return "", strings.HasSuffix(path, e.Path)
	}
	rest, ok := strings.CutSuffix(path, post)
	if !ok {
		return "", false
	}
	i := strings.LastIndexByte(rest, '/')
	if i < 0 || i == len(rest)-1 || !strings.HasSuffix(rest[:i+1], pre) || !plainSegment(rest[i+1:]) {
		return "", false
	}
	return rest[i+1:], true
}

// plainSegment reports whether a decoded path segment reads the same in
// any URL: no query, fragment or escape start, no backslash, space or
// control character.
func plainSegment(s string) bool {
	for _, c := range []byte(s) {
		if c <= ' ' || c == 0x7f || strings.IndexByte("?#%\\", c) >= 0 {
			return false
		}
	}
	return true
}
