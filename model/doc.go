// Package model is the vocabulary an agent and its model share, free of any
// provider's API: a Request, the Chunk values a model streams back, the
// ProviderError codes a call can fail with, and Provider, the seam between
// an agent and its model.
//
// A native agent calls its model through a Provider. In a live run that is
// a client of the provider's API. In a replay it is a thin adapter over
// package llmreplay's Player, which serves the chunks the session logs
// recorded (agent.Replay is the reference agent's). The agent's code is the
// same in both:
//
//	err := provider.Stream(ctx, model.Request{SessionID: sid, Cwd: cwd, Model: name,
//		System: prompt, Messages: history, Tools: tools},
//		func(c model.Chunk) error {
//			switch c.Type {
//			case model.TextDelta:
//				reply.WriteString(c.Text) // and show it to the user
//			case model.Finish:
//				stop = c.Reason
//			}
//			return nil
//		})
//	var pe *model.ProviderError
//	if errors.As(err, &pe) && pe.Retryable() {
//		// RATE_LIMIT or UNAVAILABLE: the call may be made once more
//	}
//
// The agent logs each chunk as an assistant/chunk event of its session log.
// That is what a replay serves back. A Chunk's JSON form carries exactly
// the keys its type allows, and decoding refuses any other.
//
// The chunk types and their keys, and the provider error codes, are
// specified in docs/format.md ("Stream chunks"). How a native agent
// replays its model is in docs/agents.md ("The native contract").
package model
