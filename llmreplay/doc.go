// Package llmreplay is the model stand-in of acpsnap (docs/format.md,
// "Replay"). It derives a replay script from recorded session logs
// (Derive), applies authored overrides, and serves the script either
// in-process to a native agent's provider (Player), or over HTTP in a
// model dialect to live adapters and third-party agents (Server, the
// scripted server of `acpsnap new -model` and `acpsnap serve-model`).
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
// Decoding is strict everywhere (DecodeScript, DecodeOverride,
// DecodeModel, Derive), and errors carry the file, the line and the JSON
// path:
//
//	llmreplay: decode override: snapshots/x/replay.override.json:7: $[2].chunks[0].type: unknown chunk "text-delt"
//
// A call the script cannot serve fails with a *model.ProviderError of code
// REPLAY that says "re-record", and is kept in Report().Errors, so the
// harness fails the scenario even when the agent swallows the error. The
// entries, derivation, overrides, serving rules and the scripted server's
// HTTP answers are specified in docs/format.md ("Replay"); each dialect's
// events and bodies are its codec's, under internal/wire.
package llmreplay
