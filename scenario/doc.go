// Package scenario is the scenario folder format: the manifest
// (snapshot.yml), the client script (input.json), the fixed file names, the
// committed fixture and its fixture-side normalization, and the guards that
// check a corpus without running an agent. docs/format.md is the contract;
// this package is its code.
//
//	snapshot.yml           manifest (closed schema; LoadManifest)
//	input.json             the client script (LoadInput)
//	stdout.expected.jsonl  the agent's normalized stdout
//	session.jsonl          the normalized primary session log: replay source and expected log
//	session.<n>.jsonl      child (subagent) logs, n = 1, 2, … contiguous
//	replay.override.json   authored model behaviour, iff replay.override: true
//	workspace/             seed copied into the scenario's working directory
//
// Every loader is strict: unknown keys, duplicate JSON keys and values of
// the wrong type are errors that carry the file, the line and, for JSON,
// the path ("input.json:7: $.steps[3].op: unknown op \"promt\"").
//
// # Guards
//
// Verify reports every violation with its path, not only the first: orphan
// folders, missing required files, stray files, an override present when
// the manifest does not say so (or the reverse), child logs not contiguous
// from 1, logs that do not parse or have no header, fixtures that are not a
// fixed point of normalization, invalid manifests or client scripts, and
// replay scripts that do not load (for example an unterminated model call
// without an override).
package scenario
