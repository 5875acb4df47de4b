// Package wire holds what the model dialects of acpsnap share: the
// Codec type, the one table between provider error codes and HTTP
// statuses, the response a scripted server renders, and the text of a
// model-side stop. Each dialect is a codec of its own, both directions,
// in a package below this one, and an entry of the one dialect table,
// internal/wire/dialect:
//
//	dialect           the table: names, endpoints, keys, variables, codecs
//	openaichat        OpenAI chat completions ("/chat/completions")
//	openairesponses   OpenAI Responses ("/responses")
//	anthropic         Anthropic Messages ("/v1/messages", "/v1/messages/count_tokens")
//	gemini            Gemini generateContent ("/v1beta/models/M:streamGenerateContent", …)
//	sse               the server-sent-events framing all four stream in
//
// A codec renders a Response (dialect-neutral model.Chunks, and the
// provider error a stream fails with) into the dialect's events or JSON
// body, and parses the dialect back into model.Chunks and
// *model.ProviderError: render then parse gives the chunks back. The
// scripted replay.Server uses the render side, live providers such as
// the reference agent's agent/internal/deepseek the parse side.
//
// # Errors and statuses
//
// A refused request answers with the status of its code, and an error
// status without a code of ours in its body maps back to a code:
//
//	code          status   statuses that map to it
//	AUTH          401      401, 403
//	RATE_LIMIT    429      429
//	UNAVAILABLE   503      500 and above
//	BAD_REQUEST   400      any other
//	STREAM        500
//	REPLAY        500
//	INTERNAL      500
//
// Every dialect's error body also carries the code itself (in the slot the
// dialect has for it), so that a code survives the trip even where the
// status is shared.
package wire
