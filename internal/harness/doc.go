// Package harness runs one scenario against an ACP agent, as a real ACP
// client, and returns what happened: the agent's raw stdout lines, its
// session logs (composed from its model traffic for an HTTP agent), its
// stderr, per-step timings and its replay report. Comparing with the
// fixtures is package check's job; the harness never prints, never exits
// and never reads the environment to decide anything: Config says it all,
// and each of its fields says its zero value.
//
//	res, err := harness.Run(ctx, harness.Config{
//		Dir:      "snapshots/text-turn",
//		Settings: harness.Settings{Agent: []string{"acpsnap", "agent"}},
//	})
//	if err != nil { // the step that failed and why, then the agent's last stderr lines
//		...
//	}
//	// res.Stdout, res.Logs (primary first), res.Cwd, res.Home, res.Root and
//	// their aliases feed normalize.
//
// Per run the harness makes private roots with a nonce, seeds the cwd from
// the scenario's workspace/, starts the agent in its own process group with
// an allowlisted environment (package agentenv; docs/agents.md, "The native
// contract"), or, with Config.Model, behind a model proxy on 127.0.0.1
// (package internal/proxy) with no ACPSNAP_* variable and no secret. It
// drives input.json's steps (docs/format.md, "Client script"), serves
// permissions, fs/* and terminal/* (in a pseudo-terminal) inside the cwd,
// shuts the agent down within three graces, harvests its logs and removes
// its roots, or with Settings.Pool empties them for the next run
// (docs/format.md, "Running").
//
// Run composes four rooms (docs/architecture.md, "The harness's rooms"):
// internal/proc supervises the processes, internal/client is the ACP
// client side, internal/harvest makes the private roots and reads back
// what the agent left in them, internal/relay runs the model proxy (which
// normalizes every model payload once, in the run's live context:
// Result.Tokens) and the MCP cassette proxies. The step driver is the
// harness's own.
//
// Capture is the other entry point: the agent run as Record runs it, in a
// real client's folder, with that client's messages relayed live instead
// of input.json's steps, and the session returned as a scenario's
// input.json and logs (docs/format.md, "Capture"); internal/script turns
// the client's messages into the client script.
//
// Every wait has a timer and every buffer and file read has a cap (the
// constants beside each reader), so a hostile agent ends the run in bounded
// time and memory with one error naming the step, the line and the cause
// (docs/agents.md, "Against a hostile agent"). errors.Is tells the kinds
// apart: ErrInvalidScenario for the scenario's own files, ErrInfrastructure
// when the run could not be made at all; anything else is the agent
// failing the scenario.
package harness
