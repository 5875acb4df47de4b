// Package agent is acpsnap's reference ACP agent: a small but real coding
// agent (files, bash, fetch, a plan, subagents, MCP tools, permissions,
// cancel) that the bundled corpus tests, and an example of an agent made
// snapshot-testable the native way (docs/agents.md).
//
// Serve speaks ACP over a reader and a writer until the reader ends:
//
//	err := agent.Serve(ctx, agent.Config{
//		Provider:    provider, // live (agent/internal/deepseek) or agent.Replay(player)
//		SessionsDir: dir,      // one session.jsonl per session below it
//	}, os.Stdin, os.Stdout)
//
// On EOF Serve ends the turns still running (aborted, by "disposed"),
// closes every session log and returns nil. Record and replay run the same
// agent: the model.Provider is the only seam. The package never reads the
// environment, prints or exits: agent/launch reads the ACPSNAP_* contract
// and DEEPSEEK_*, builds the Config and writes the replay report, and
// `acpsnap agent` runs agent/launch. Config's fields say their zero values.
//
// What the agent does on the wire, its tools, the order of its log events
// and why its output is deterministic are in docs/reference-agent.md; the
// events themselves in docs/format.md ("Session log"); its cassettes in
// docs/cassettes.md.
package agent
