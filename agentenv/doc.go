// Package agentenv is the contract between acpsnap and a native agent: one
// that writes acpsnap's session log itself and replays its own model, like
// the reference agent. acpsnap's harness starts the agent with ACPSNAP_*
// variables that say where to write its logs and what to replay. The
// agent reads them with Load and, at exit, writes what it replayed with
// WriteReport:
//
//	contract, err := agentenv.Load(os.Getenv)
//	if contract.Mode == agentenv.Replay {
//		player, err := llmreplay.Load(llmreplay.Config{
//			Primary: contract.Fixture, Children: contract.FixtureChildren, Override: contract.Override,
//		})
//		// … serve every model call from player …
//		defer agentenv.WriteReport(contract.SessionsDir, player.Report())
//	}
//	// write each session's log as contract.SessionsDir/<session-id>/session.jsonl (package sessionlog)
//
// Outside acpsnap every field is empty, and the agent runs as it always
// does. Load refuses a contract that makes no sense, such as replay mode
// without a fixture.
//
// The harness fails a scenario whose report says a recorded model call
// was never made, or names an error the replay raised. An agent that
// writes no session log needs none of this: acpsnap records and replays
// its model traffic over HTTP instead.
//
// docs/agents.md ("The native contract") lists every variable and the
// rest of the agent's environment; the constants below name them.
package agentenv
