// Package deepseek is the live model provider of the reference agent: it
// streams DeepSeek's OpenAI-compatible chat completions and turns them into
// the chunks of docs/format.md, "Session log" (model.Chunk), the unit the session log records
// and llmreplay replays.
//
// The happy path:
//
//	p := deepseek.New(deepseek.Config{APIKey: key})
//	err := p.Stream(ctx, model.Request{System: sys, Messages: msgs, Tools: tools}, func(c model.Chunk) error {
//		log(c)
//		return nil
//	})
//
// # Configuration
//
// Config holds everything; the package never reads the environment. The CLI
// (record mode) maps:
//
//	DEEPSEEK_API_KEY   Config.APIKey
//	DEEPSEEK_BASE_URL  Config.BaseURL  ("": https://api.deepseek.com; a trailing "/" or "/v1" is fine)
//	DEEPSEEK_MODEL     Config.Model    ("": deepseek-chat)
//
// HTTPClient nil means a client that bounds connecting (30s), the TLS
// handshake (15s) and the wait for response headers (3m), but not the
// stream: cancel a stream through the context, which closes the body and
// makes Stream return ctx.Err() at once.
//
// # Request
//
// POST {BaseURL}/chat/completions with headers Authorization: Bearer <key>,
// Content-Type: application/json, Accept: text/event-stream and, when
// model.Request.SpawnedBy is set, X-Acpsnap-Spawned-By: <SpawnedBy> (the
// replay Server routes child sessions by it; DeepSeek ignores it). Body:
//
//	{"model": Request.Model or Config.Model,
//	 "messages": [{"role":"system","content":System},   // when System != ""
//	              {"role":"user","content":…},
//	              {"role":"assistant","content":…,"tool_calls":[{"id","type":"function","function":{"name","arguments"}}]},
//	              {"role":"tool","tool_call_id":…,"content":…}, …],
//	 "tools": [{"type":"function","function":{"name","description","parameters"}}],  // omitted when empty
//	 "stream": true, "stream_options": {"include_usage": true},
//	 "max_tokens": Request.MaxTokens or Config.MaxTokens}  // omitted when 0
//
// Reasoning (model.Message.Reasoning) is never sent back: DeepSeek rejects
// reasoning_content in input messages.
//
// # Dialect mapping
//
// The response is server-sent events: `data: <json>` lines (possibly split
// across reads, "\n" or "\r\n" line ends), each event ended by a blank line
// or by the end of the body (so `data: [DONE]` right before EOF, without
// its blank line or even its line end, still ends the stream); comment
// lines (":", DeepSeek's keep-alives) and other fields are ignored;
// `data: [DONE]` ends the stream. A 200 response must be
// text/event-stream (a missing Content-Type is read as one); any other
// Content-Type is read as an error body (see Errors). Each event maps as
// follows:
//
//	API event                                         chunks
//	choices[0].delta.reasoning_content: s (s != "")   [block-start reasoning], reasoning-delta{text: s}
//	choices[0].delta.content: s (s != "")             [block-start text], text-delta{text: s}
//	choices[0].delta.tool_calls[]: {index k, id?,     [block-start tool-call], tool-call-delta{id, name?, argumentsDelta: a}
//	    function: {name?, arguments: a}}
//	choices[0].finish_reason: stop                    finish{reason: stop}          (at [DONE])
//	                          tool_calls              finish{reason: tool-calls}
//	                          length                  finish{reason: max-tokens}
//	                          anything else           finish{reason: error, error: "model stopped with finish_reason …"}
//	usage: {prompt_tokens i, completion_tokens o}     usage{inputTokens: i, outputTokens: o}  (at [DONE])
//	{"error": {message, code}}                        a STREAM (or its own) provider error
//
// The wire format is not this package's: the adapter parses with the codec
// llmreplay/wire/openaichat, the very codec llmreplay.Server renders with,
// so the two cannot drift apart. The chunk order is canonical:
// exactly one block is open at a time; blocks are numbered 0, 1, 2… in order
// of appearance; a block starts with block-start and is closed by block-end
// when the next block starts; at [DONE] come the block-end of the open
// block, then usage (if received), then finish. Empty content and reasoning
// deltas open no block (DeepSeek starts every message with content ""). Tool
// calls are keyed by tool_calls[].index: every tool-call-delta of call k
// carries its id (sent once by the API; "call_<k>" if never sent), the name
// only on the first delta that has one, and argumentsDelta exactly as
// received, even "". Reasoning, text and tool calls of one delta are emitted
// in that order.
//
// # Errors
//
// Stream returns nil after the finish chunk; ctx.Err() when the context is
// cancelled (even mid-stream); the error of emit as is; any other failure is
// a *model.ProviderError, after the chunks already emitted (no block-end,
// no finish):
//
//	AUTH         HTTP 401 or 403
//	RATE_LIMIT   HTTP 429
//	UNAVAILABLE  HTTP 5xx, or the request could not be sent (connection refused, DNS, …)
//	BAD_REQUEST  any other HTTP status but 200, or a 200 whose Content-Type
//	             is not text/event-stream
//	STREAM       a 200 stream that ends or breaks without [DONE], an
//	             unparsable event, [DONE] without a finish_reason, or an
//	             {"error":…} event whose code is not one of these codes
//
// The message is the body's error.message, else "HTTP <status>: " and the
// first 200 bytes of the body ("HTTP 200 OK with Content-Type "…", not
// text/event-stream: " and the body for a 200 that is not a stream). When an error body or event carries one of
// these codes, or REPLAY or INTERNAL, as its error.code (llmreplay.Server
// does), that code wins over the status mapping, so that a replayed throw
// comes back with the code it was recorded with. Stream never retries: the
// agent loop retries RATE_LIMIT and UNAVAILABLE once.
//
// # Dependencies
//
// No OpenAI SDK: the request body, the stream parser and the status
// mapping are those of llmreplay/wire/openaichat (its doc says why it is
// hand-written), over the byte-exact SSE reader of llmreplay/wire/sse.
package deepseek
