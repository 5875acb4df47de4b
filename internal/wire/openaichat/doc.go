// Package openaichat is the codec of the OpenAI chat-completions dialect
// as DeepSeek speaks it (reasoning in reasoning_content), both directions:
// Render and RenderJSON turn a wire.Response into the stream or the
// completion a server sends, Decode and DecodeJSON turn them back into
// model.Chunks, ErrorBody and ResponseError do the same for refused
// requests, and RequestBody builds the request the reference agent sends.
//
//	events := openaichat.Render(wire.Response{ID: "chatcmpl-1", Model: "deepseek-chat", Chunks: chunks})
//	err := openaichat.Decode(resp.Body, emit) // the same chunks again
//
// # The stream
//
// Every event is "data: <json>\n\n"; a complete stream ends with
// "data: [DONE]\n\n". An event is
//
//	{"id":ID,"object":"chat.completion.chunk","created":0,"model":M,
//	 "choices":[{"index":0,"delta":{…},"finish_reason":null}]}
//
// Per chunk:
//
//	block-start, block-end   nothing (the parser rebuilds blocks)
//	text-delta               delta {"content":text}
//	reasoning-delta          delta {"reasoning_content":text}
//	tool-call-delta          delta {"tool_calls":[{"index":k,"id":id,"type":"function",
//	                         "function":{"name":n,"arguments":a}}]} on the first delta
//	                         of call k (k = 0, 1, … by first appearance of its block
//	                         index), then {"index":k,"function":{"arguments":a}}
//	usage                    held back; sent after the finish event as
//	                         {"choices":[],"usage":{"prompt_tokens":i,
//	                         "completion_tokens":o,"total_tokens":i+o}}
//	finish stop|tool-calls|  delta {} with finish_reason "stop", "tool_calls",
//	max-tokens               "length"
//	finish error             a model-side stop (wire.ModelStop) goes out as its
//	                         finish_reason; any other error finish, and a response
//	                         that fails (wire.Response.Err), is the error event
//	                         data: {"error":{"message":msg,"code":code}} with no [DONE]
//
// A refused request is the code's status (wire.Status) with
// {"error":{"message":msg,"type":"api_error","code":code}}. RenderHang is
// the opening event DeepSeek sends first, delta {"role":"assistant",
// "content":""}, which parses into no chunk.
//
// Decode rebuilds the canonical order of model.Chunk: one open block at a
// time, indices 0, 1, 2… in order of appearance, a block closed when the
// next one starts, and at [DONE] the open block's end, the usage and the
// finish. Render then Decode is the identity on canonical chunks.
//
// # Why a hand-written codec
//
// The official github.com/openai/openai-go/v3 types were considered: they
// model OpenAI's own API (no reasoning_content, which DeepSeek adds), bring
// a large dependency for a dozen fields, and re-marshal with their own key
// order and zero values, so a byte-exact rendering needs our own structs
// anyway. The dialect is small enough to write by hand and test byte for
// byte.
package openaichat
