// Package tool records an agent's selected tool calls once, at the
// boundary of the tool's body, and replays them without running the body:
// an HTTP fetch, an MCP server's tool, a database query, a program the CI
// machine does not have. Any agent wraps its tool execution with it:
//
//	c, err := tool.Open(tool.Config{Mode: tool.Replay, File: "tools.cassette.jsonl", Include: []string{"fetch", "mcp__*"}})
//	raw, err := c.Call(ctx, path, name, args, func(ctx context.Context) (json.RawMessage, error) {
//		return runTheToolForReal(ctx) // never called in replay for a selected tool
//	})
//	// render raw, or err, with the agent's own code, exactly as a live result
//	err = c.Close() // record: publish; replay: a mismatch, an extra call, a recorded call never made
//
// In record mode Call returns the canonical value it recorded, so record
// and replay render the same bytes. A recorded error comes back as a
// *RecordedError with the original message. A call that differs from the
// recording fails with a *MismatchError (errors.Is ErrMismatch), and so
// does every selected call after it.
//
// A native agent finds the cassette and the selection in its contract
// (agentenv.Agent's ToolCassette and ToolInclude). docs/cassettes.md
// ("The tool cassette") specifies the selection, a call's identity, the
// frames, replay, mismatch, recording and security.
package tool
