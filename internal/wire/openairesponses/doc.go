// Package openairesponses is the codec of the OpenAI Responses API (the
// dialect codex speaks, wire_api = "responses"), both directions: Render
// and RenderJSON turn a wire.Response into the stream or the response
// object a server sends, Decode and DecodeJSON turn them back into
// model.Chunks.
//
// # The stream
//
// Every event is "event: TYPE\ndata: {"type":TYPE,"sequence_number":n,…}\n\n",
// n counting from 0. A stream opens with response.created and
// response.in_progress (RenderHang sends only these), and each block is an
// output item at output_index k (0, 1, … in order of block-start):
//
//	text block       response.output_item.added {"type":"message","role":"assistant",…},
//	                 response.content_part.added (output_text),
//	                 response.output_text.delta per text-delta,
//	                 at block-end response.output_text.done, .content_part.done,
//	                 .output_item.done (status completed)
//	reasoning block  output_item.added {"type":"reasoning","summary":[]},
//	                 response.reasoning_summary_part.added,
//	                 response.reasoning_summary_text.delta per reasoning-delta,
//	                 at block-end .reasoning_summary_text.done, .reasoning_summary_part.done,
//	                 .output_item.done
//	tool-call block  output_item.added {"type":"function_call","call_id":id,"name":n,
//	                 "arguments":""} (id and name of the block's first delta),
//	                 response.function_call_arguments.delta per tool-call-delta,
//	                 at block-end .function_call_arguments.done, .output_item.done
//
// Item ids are "msg_", "rs_", "fc_" + the response id + "_k". The usage
// chunk goes into the final response's usage (null without one). The
// finish ends the stream with response.completed (stop, tool-calls) or
// response.incomplete with incomplete_details.reason "max_output_tokens"
// (max-tokens) or a model-side stop's reason; a failure (an error finish
// with a code, wire.Response.Err) with response.failed whose
// response.error is {"code":code,"message":msg}. A refused request is the
// OpenAI error body of package openaichat.
//
// Decode maps items back to blocks in order of output_item.added and ends
// at response.completed or .incomplete. The dialect has no finish reason
// of its own: a completed response is tool-calls when it output a function
// call, stop otherwise, so a script whose finish disagrees with its blocks
// does not round-trip (no model sends one). It also reads
// response.reasoning_text.delta (raw reasoning) as reasoning, an item that
// streamed no delta but carries its content in output_item.done as one
// delta, and the "error" event; items acpsnap has no chunk for (web
// search, …) are skipped. Codes of ours in an error survive; OpenAI's own
// (rate_limit_exceeded, server_error, …) are mapped, anything else is
// STREAM.
//
// # Why a hand-written codec
//
// github.com/openai/openai-go/v3 has every Responses type, but its union
// types re-marshal with their own field order and defaults, so rendering
// the stream byte for byte would mean our own structs on top of it, and
// the parse side needs a dozen fields. The few event shapes here are
// those codex-acp reads; it and pi have been driven against this
// rendering (a text turn; reasoning, a shell_command call and a follow-up).
package openairesponses
