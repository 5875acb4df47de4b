// Package tool is the tool-call cassette. It records an agent's selected
// tool calls once, at the tool-body boundary, and replays them without
// running a tool body. docs/cassettes.md ("The tool cassette") specifies
// the selection, a call's identity, the frames, replay, mismatch and
// poisoning, recording and security. A call's identity is its path, its
// tool, its canonical arguments and its ordinal. Any agent wraps its tool
// execution with it:
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
// A mismatch is a *MismatchError with code CASSETTE_MISMATCH, and it
// poisons the player. A recorded error comes back as a *RecordedError with
// the original message. In record mode Call returns the canonical value it
// recorded, so record and replay render the same bytes.
package tool
