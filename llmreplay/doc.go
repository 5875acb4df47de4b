// Package llmreplay is the model stand-in of acpsnap (docs/format.md,
// "Replay"). Derive turns recorded session logs into a replay script, and
// authored overrides change it. The script is served in one of two ways.
// Player serves it in-process to a native agent's provider. Server serves it
// over HTTP, in a model dialect, to live adapters and third-party agents;
// it is the scripted server of `acpsnap new -model` and
// `acpsnap serve-model`.
//
// The happy path of a replayed scenario, in the agent's process:
//
//	p, err := llmreplay.Load(llmreplay.Config{
//		Primary:  "snapshots/x/session.jsonl",
//		Children: []string{"snapshots/x/session.1.jsonl"},
//		Override: "snapshots/x/replay.override.json", // "" when there is none
//	})
//	// for every model call of the agent:
//	err = p.Stream(ctx, llmreplay.StreamRequest{SessionID: id, SpawnedBy: callID, Cwd: cwd}, emit)
//	// at shutdown:
//	err = agentenv.WriteReport(sessionsDir, p.Report())
//
// Decoding is strict everywhere: in DecodeScript, DecodeOverride,
// DecodeModel and Derive. Errors carry the file, the line and the JSON
// path:
//
//	llmreplay: decode override: snapshots/x/replay.override.json:7: $[2].chunks[0].type: unknown chunk "text-delt"
//
// A call the script cannot serve fails with a *model.ProviderError of code
// REPLAY that says "re-record". The error is kept in Report().Errors, so the
// harness fails the scenario even when the agent swallows it.
// docs/format.md ("Replay") specifies the entries, derivation, overrides,
// serving rules and the scripted server's HTTP answers. Each dialect's
// events and bodies belong to its codec, under llmreplay/wire.
package llmreplay
