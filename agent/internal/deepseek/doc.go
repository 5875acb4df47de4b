// Package deepseek is the live model provider of the reference agent: it
// streams DeepSeek's OpenAI-compatible chat completions and turns them into
// model.Chunk values, the unit the session log records and llmreplay
// replays (docs/format.md, "Stream chunks").
//
//	p := deepseek.New(deepseek.Config{APIKey: key}) // BaseURL "": DefaultBaseURL, Model "": DefaultModel
//	err := p.Stream(ctx, model.Request{System: sys, Messages: msgs, Tools: tools}, func(c model.Chunk) error {
//		log(c)
//		return nil
//	})
//
// Config holds everything; the package never reads the environment
// (agent/launch maps DEEPSEEK_API_KEY, DEEPSEEK_BASE_URL and
// DEEPSEEK_MODEL onto it; docs/reference-agent.md, "The live model").
// Stream posts to {BaseURL}/chat/completions, adds X-Acpsnap-Spawned-By
// for a child's call (the scripted server routes by it), and never sends
// reasoning back. It returns nil after the finish chunk, ctx.Err() when the
// context ends (mid-stream too), emit's error as is, and any other failure
// as a *model.ProviderError after the chunks already emitted; an error
// body's own code (as replay.Server sends) wins over the HTTP status.
// It never retries: the agent's turn loop retries RATE_LIMIT and
// UNAVAILABLE once.
//
// The request body, the stream parser, the canonical chunk order and the
// status mapping are those of internal/wire/openaichat, the codec the
// scripted server renders with, so the two cannot drift apart; its doc
// says why it is hand-written rather than an OpenAI SDK.
package deepseek
