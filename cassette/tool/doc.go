// Package tool is the tool-call cassette: it records an agent's selected
// tool calls at the tool-body boundary once, and replays them with zero
// body executions (docs/cassettes.md is the contract). Any agent wraps its
// tool execution with it:
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
// # Selection
//
// Include lists exact tool names and '*' patterns; it must be non-empty,
// with no blank or repeated pattern. Unselected tools run as usual, in
// both modes, and leave no trace in the cassette.
//
// # Identity
//
// A call is its structural path ("root", or the subagent path the caller
// gives), its tool name, its canonical JSON arguments (object key order is
// free, array order is kept, numbers are kept as written) and its ordinal:
// its place in start order among the selected calls at that path (so
// concurrent subagents, whose calls interleave differently from run to run,
// still replay). Volatile call ids play no part. Concurrent calls take
// ordinals when they start and their results pair with them by path and
// ordinal, whatever order they finish in.
//
// # Replay
//
// The Player verifies the whole file before the first call. Call k at a
// path must be recorded call k at that path: the lookup is by path and
// ordinal (O(1)). The first difference in tool or arguments there (which
// is how a changed path or order shows), and a call beyond the recorded
// ones at its path, is
// a *MismatchError with code CASSETTE_MISMATCH, and poisons the player:
// every later selected call fails too, without running its body, so no run
// is half tape and half real. Close reports the mismatch, extra calls and
// recorded calls never consumed; any of them fails the run. Diagnostics
// name calls by ordinal, path and tool, and arguments by an unsalted
// fingerprint, never by content.
//
// A recorded value is returned as raw JSON for the caller's own rendering:
// the result the model and the client see is made by today's code. A
// recorded error comes back as a *RecordedError with the original message.
// In record mode Call returns the canonical value it recorded, so record and
// replay render the same bytes.
//
// # Recording
//
// The Recorder writes call/start when a call starts and call/result when it
// ends, through cassette.Writer (exclusive .partial, fsync per frame).
// Close publishes the file only when every call finished and nothing
// failed; otherwise the .partial stays and nothing is published.
//
// # Security
//
// A cassette holds arguments, values and error messages verbatim: treat it
// like a database snapshot, and read it before sharing.
package tool
