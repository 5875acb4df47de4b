// Package snapshots is the bundled corpus and the library that checks it.
//
// Each folder below snapshots/ is one scenario (SPEC §2):
//
//	snapshot.yml           manifest (closed schema; see harness.LoadManifest)
//	input.json             the client script (see harness.LoadInput)
//	stdout.expected.jsonl  the agent's normalized stdout
//	session.jsonl          the normalized primary session log: replay source and expected log
//	session.<n>.jsonl      child (subagent) logs, n = 1, 2, … contiguous
//	replay.override.json   authored model behaviour, iff replay.override: true
//	workspace/             seed copied into the scenario's working directory
//
// The happy path is `go test ./...`: TestSnapshots replays every scenario in
// parallel, one subtest per folder, and TestGuards runs the guards. The same
// checks are reachable from the CLI (`acpsnap run`) through Run and Verify.
//
// # Checking one scenario
//
// Check runs the scenario with the harness (the agent replays its model from
// the committed logs), then normalizes both sides, each with its own context:
// the live side with what the run knows (its cwd and aliases), the fixture
// side with a context derived from the fixture's own header. One context
// serves the primary log, then the child logs, then stdout, so ids in stdout
// share their numbers with the logs. Differences are reported as unified
// diffs labelled "-want +got", with the mode that would accept them: Update
// when only stdout differs, Refresh when a session log differs.
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
// VerifyConfig.Rewritten lets such a run past the fixed-point guard. The CI guard
// (refuse to write when CI is set, unless forced) belongs to the callers that
// read the environment: the test suite's flags and the CLI.
//
// # Guards
//
// Verify (run before every CLI run and by `acpsnap verify`, and as TestGuards)
// reports every violation with its path: orphan folders, missing required
// files, stray files, an override present when the manifest does not say so
// (or the reverse), child logs not contiguous from 1, logs that do not parse
// or have no header, fixtures that are not a fixed point of normalization,
// invalid manifests or client scripts, and replay scripts that do not load
// (for example an unterminated model call without an override).
//
// # Sharding
//
// Selection.Shard/Shards split a corpus across CI machines by a hash of each
// scenario's name, so adding a scenario never moves the others.
package snapshots
