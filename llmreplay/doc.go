// Package llmreplay replays a recorded model to a native agent: one that
// writes acpsnap's session log itself and calls its model in-process, like
// the reference agent (docs/agents.md, "The native contract").
//
// In replay, acpsnap hands the agent the session logs it recorded as
// fixtures (agentenv.Agent's Fixture, FixtureChildren and Override). The
// agent loads them into a Player and asks it for each model call instead
// of the live model. At exit it writes the Player's report, which the
// harness reads to fail a scenario whose recorded calls were not all made:
//
//	contract, err := agentenv.Load(os.Getenv)
//	player, err := llmreplay.Load(llmreplay.Config{
//		Primary: contract.Fixture, Children: contract.FixtureChildren, Override: contract.Override,
//	})
//	// for every model call of a session:
//	err = player.Stream(ctx, llmreplay.StreamRequest{SessionID: sid, SpawnedBy: toolCallID, Cwd: cwd,
//		Request: llmreplay.RequestText(req)},
//		func(c model.Chunk) error { /* handle the chunk as if the model sent it */ return nil })
//	// at exit:
//	err = agentenv.WriteReport(contract.SessionsDir, player.Report())
//
// The Player serves each session's calls in their recorded order. A
// child session (a subagent) is found by the live id of the tool call that
// spawned it. Volatile values in the fixtures ({{cwd}}, {{session:N}},
// {{toolCall:N}}) become the live ones.
//
// Loading is strict, and errors carry the file, the line and the JSON
// path:
//
//	llmreplay: decode override: snapshots/x/replay.override.json:7: $[2].chunks[0].type: unknown chunk "text-delt"
//
// A call the fixtures cannot serve fails with a *model.ProviderError of
// code REPLAY that says to re-record. Report keeps it too, so the harness
// fails the scenario even when the agent swallows the error. How calls are
// derived from a log, and what an override does, is in docs/format.md
// ("Replay"). An agent that talks to its model over HTTP needs none of
// this: acpsnap replays its traffic through a proxy (docs/agents.md).
package llmreplay
