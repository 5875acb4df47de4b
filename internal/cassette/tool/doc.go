// Package tool implements the tool-call cassette (cassette/tool is its API
// for agents, and wraps it): it records an agent's selected
// tool calls at the tool-body boundary once, and replays them with zero
// body executions. docs/cassettes.md ("The tool cassette") specifies the
// selection, a call's identity (path, tool, canonical arguments, ordinal),
// the frames, replay, mismatch and poisoning, recording and security. Any
// agent wraps its tool execution with it:
//
//	c, err := tool.Open(tool.Config{Mode: tool.Replay, File: "tools.cassette.jsonl", Include: []string{"fetch", "mcp__*"}})
//	…
//	raw, err := c.Call(ctx, path, name, args, func(ctx context.Context) (json.RawMessage, error) {
//		return runTheToolForReal(ctx) // never called in replay for a selected tool
//	})
//	// render raw (or err) with today's code, exactly as for a live result
//	…
//	err = c.Close() // publish (record), or report mismatch / extra / unconsumed (replay)
//
// A mismatch is a *MismatchError with code CASSETTE_MISMATCH and poisons
// the player; a recorded error comes back as a *RecordedError with the
// original message; in record mode Call returns the canonical value it
// recorded, so record and replay render the same bytes.
package tool
