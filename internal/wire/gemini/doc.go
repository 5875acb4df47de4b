// Package gemini is the codec of Gemini's generateContent API (the
// dialect Gemini CLI speaks), both directions: Render and RenderJSON turn
// a wire.Response into the stream of …:streamGenerateContent?alt=sse or
// the body of …:generateContent, Decode and DecodeJSON turn them back into
// model.Chunks, and CountTokens answers …:countTokens.
//
// # The stream
//
// Every event is "data: " and one GenerateContentResponse, CRLF-ended as
// the API ends them; there are no event names and no end marker:
//
//	{"candidates":[{"content":{"parts":[PART],"role":"model"},"index":0}],
//	 "modelVersion":M,"responseId":ID}
//
// one event per text or reasoning delta (PART {"text":…}, a reasoning one
// with "thought":true) and per tool call, at its block's end, whole:
// {"functionCall":{"name":n,"args":{…}}} (the arguments compacted, {} when
// they are not an object; no id, as the live API sends none). The last event also carries the
// candidate's "finishReason" and "usageMetadata" ({"promptTokenCount":i,
// "candidatesTokenCount":o,"totalTokenCount":i+o}); an answer with no part
// ends with an empty text part. The finish reason is STOP (also after tool
// calls: Gemini has none of its own for them), MAX_TOKENS, or a model-side
// stop's reason. A failing stream ends with the data {"error":{…}} of an
// error body. RenderHang sends one event with an empty text part.
//
// Decode reads until the event with a finish reason: consecutive text
// parts of one kind are one block, each function call a block of its own,
// and STOP after a function call is the tool-calls finish. A call's id is
// the part's "id", "" without one (Gemini CLI then makes its own,
// "NAME__NAME_<ms>_<n>").
//
// # Errors
//
// A refused request is the code's status (wire.Status) with
//
//	{"error":{"code":STATUS,"message":msg,"status":S,"details":[
//	  {"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":CODE,"domain":"acpsnap"},
//	  {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"1s"}]}}
//
// S the google.rpc status (UNAUTHENTICATED, RESOURCE_EXHAUSTED,
// UNAVAILABLE, INVALID_ARGUMENT, INTERNAL); the RetryInfo only for
// RATE_LIMIT. The ErrorInfo's reason carries the code, so that STREAM,
// REPLAY and INTERNAL survive the trip; a body without one maps by status.
//
// # Why a hand-written codec
//
// google.golang.org/genai is a client library; a server rendering byte for
// byte needs its own structs, and the parse side reads a handful of
// fields. Gemini CLI has been driven against this rendering
// (examples/gemini-cli).
package gemini
