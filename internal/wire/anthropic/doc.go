// Package anthropic is the codec of the Anthropic Messages API (the
// dialect Claude Code, claude-agent-acp and pi speak), both directions:
// Render and RenderJSON turn a wire.Response into the stream or the
// message a server sends, Decode and DecodeJSON turn them back into
// model.Chunks, and CountTokens answers /v1/messages/count_tokens.
//
// # The stream
//
// Every event is "event: TYPE\ndata: {"type":TYPE,…}\n\n":
//
//	message_start        {"message":{"id":ID,"type":"message","role":"assistant","model":M,
//	                     "content":[],"stop_reason":null,"stop_sequence":null,
//	                     "usage":{"input_tokens":i,"output_tokens":0}}}, then a ping
//	                     (RenderHang sends only these two)
//	block-start          content_block_start at index k (0, 1, … in order):
//	                     {"type":"text","text":""}, {"type":"thinking","thinking":"",
//	                     "signature":""} or {"type":"tool_use","id":id,"name":n,"input":{}}
//	                     (id and name of the block's first delta)
//	text-delta           content_block_delta {"type":"text_delta","text":…}
//	reasoning-delta      content_block_delta {"type":"thinking_delta","thinking":…}
//	tool-call-delta      content_block_delta {"type":"input_json_delta","partial_json":…}
//	block-end            content_block_stop; a thinking block first gets
//	                     signature_delta {"signature":"acpsnap"} (Signature)
//	finish               message_delta {"delta":{"stop_reason":R,"stop_sequence":null},
//	                     "usage":{"input_tokens":i,"output_tokens":o}}, message_stop;
//	                     R is end_turn, tool_use, max_tokens, or a model-side stop's reason
//	failure              event: error {"type":"error","error":{"type":T,"message":msg}}
//
// A refused request is the code's status (wire.Status) with the same
// error object. The error type carries the code: AUTH
// authentication_error (and permission_error back), RATE_LIMIT
// rate_limit_error, UNAVAILABLE overloaded_error, BAD_REQUEST
// invalid_request_error (and not_found_error, request_too_large back),
// INTERNAL api_error; STREAM and REPLAY, which Anthropic has no type for,
// get stream_error and replay_error so they survive the trip.
//
// Anthropic always reports usage: a response without a usage chunk is
// rendered with 0 and 0, and parses with a usage chunk of zeros. Decode
// reads stop_sequence as a stop, skips signature and citation deltas and
// blocks acpsnap has no chunk for (redacted_thinking, server tools).
//
// # Why a hand-written codec
//
// github.com/anthropics/anthropic-sdk-go/v2 has these types, but as a
// client library: its params and unions marshal with their own shapes and
// defaults, so a server rendering byte for byte needs its own structs, and
// the parse side reads a handful of fields. Claude Code (its CLI and
// claude-agent-acp: a text turn; thinking, a Bash tool_use and a follow-up)
// and pi have been driven against this rendering.
package anthropic
