// Package check checks a corpus of scenarios: it runs each scenario with the
// harness, normalizes both sides, compares them and, in the writing modes,
// writes the fixtures. The CLI (`acpsnap run`) and the go test entry point
// are thin layers over Run and Check.
//
//	outs, err := check.Run(ctx, check.RunConfig{Root: "snapshots", Config: check.Config{Agent: argv}})
//	passed, failed, skipped := check.Count(outs)
//
// # Checking one scenario
//
// Check runs the scenario with the harness (the agent replays its model from
// the committed logs), then normalizes both sides, each with its own context:
// the live side with what the run knows (its cwd and aliases, its private
// HOME and root), the fixture side with a context derived from the fixture's
// own header (scenario.Fixture.Normalize). One context serves the primary
// log, then the child logs, then stdout, so ids in stdout share their
// numbers with the logs. Differences are reported as unified diffs labelled
// "-want +got", with the mode that would accept them: Update when only
// stdout differs, Refresh when a session log differs.
//
// Diffs are readable (internal/jsondiff): a changed pair of JSON lines is
// shown as its changed key paths with the changed words marked (colour when
// Config.DiffColor, which the caller decides), unchanged text elided,
// invisibles escaped, each file's diff capped.
//
// A scenario with a workspace.expected/ folder also compares the cwd the
// run left with it (internal/treediff, through harness.Config.OnEnd, which
// copies the cwd with {{cwd}} tokens before the harness removes it); a
// difference is accepted by Refresh and Record, which rewrite the folder.
// Outcome.Obsolete lists the fixtures the run no longer produced (child
// logs, expected entries); a writing mode removes them, unless Config.CI.
//
// With Config.Pending a differing scenario writes <file>.new beside each
// differing fixture (workspace.expected.new/ for the tree) instead of
// writing fixtures; `acpsnap review` and accept/reject act on them
// (docs/format.md, "Review").
//
// # Writing modes
//
//	Replay   writes nothing (the default)
//	Update   writes stdout.expected.jsonl only; a differing log still fails
//	Refresh  writes stdout.expected.jsonl and the session logs
//	Record   runs against the live model; writes both; recording: live scenarios only
//
// Writes are all-or-nothing: every file is written to a temporary file in the
// scenario folder first and only renamed into place once all are written; a
// failed run writes nothing, and stale child logs are removed. A fixture
// whose bytes are not in normal form (a hand edit) is rewritten in normal
// form by the mode that may write it, even when the sides compare equal;
// scenario.VerifyConfig.Rewritten lets such a run past the fixed-point
// guard. The CI guard (refuse to write when CI is set, unless forced)
// belongs to the callers that read the environment, the CLI and
// acpsnaptest, which share one rule for the CI variable's value (CI).
//
// # Scenarios not recorded yet, and authored ones
//
// A scenario scaffolded but never recorded (neither stdout.expected.jsonl
// nor session.jsonl) comes back Unrecorded without running an agent, with
// Accept the mode that records it; it never stops the others. An authored
// scenario keeps its model beside it (model.json): with
// Config.ScriptedSecrets, Refresh re-renders it by recording it against a
// scripted server serving that model (Scripted), so an edit of input.json
// or model.json is one refresh away.
//
// # Selection and sharding
//
// Selection filters by a regular expression on the scenario name, and
// Shard/Shards split a corpus across CI machines by a hash of each
// scenario's name, so adding a scenario never moves the others.
package check
