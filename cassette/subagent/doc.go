// Package subagent records a child agent's run at its boundary and replays
// it without starting the child, its model or its log: the parent gets the
// recorded outcome. It is a subagent cassette on the hash-chained protocol
// of package cassette (docs/cassettes.md is the contract; this is its
// manual).
//
// Recording wraps the function that runs the child:
//
//	rec, err := subagent.Record("subagents.cassette.jsonl", subagent.Options{})
//	res, err := rec.Call(ctx, parent, req, func(ctx context.Context, run *subagent.Run) (subagent.Result, error) {
//		// start the child; once it runs:
//		run.Started()
//		return child.Wait(ctx)
//	})
//	err = rec.Close() // complete and publish; fails while a call still runs
//
// Replaying never calls that function:
//
//	play, err := subagent.Replay("subagents.cassette.jsonl", subagent.Options{})
//	res, err := play.Call(ctx, parent, req, nil) // the recorded result, or its recorded error
//	err = play.Close()                          // fails while recorded calls were not replayed
//
// Recorder and Player are both a Boundary, so a parent holds one and does
// not care which. Both are safe for concurrent use.
//
// # Identity
//
// A call is identified by three things, none of them the order in which
// calls complete:
//
//   - its parent's topology path (Parent.Path): Root ("root") for the
//     cassette's one top-level agent, else the Key of the call that
//     started that parent. A call's own Key is
//     "<parent>/<label>-<12 hex>~<occurrence>", the hex digits taken from
//     the SHA-256 of its two fingerprints;
//   - the parent-context fingerprint (ContextFingerprint): SHA-256 of the
//     canonical JSON of the parent's options, cwd token, delegation depth,
//     permission mode, tool set (as a set) and whether the child inherits
//     the parent's conversation; when it does, also the message prefix of
//     the completed turns, with volatile ids removed and tool-call ids
//     renumbered (NormalizeMessages);
//   - the request fingerprint (RequestFingerprint): SHA-256 of the
//     canonical JSON of label, prompt, options, output schema and tool
//     filter.
//
// Canonical JSON sorts object keys, keeps array order and keeps numbers
// as written. Both fingerprints are taken before any redaction, so the
// live request of a replay matches the recorded one even where the stored
// copy says "[REDACTED]".
//
// Calls with the same parent, context and request form an occurrence
// group; each takes the next occurrence when it is admitted (when Call
// starts, not when it ends). Two children started in one message, A then
// B, are admitted A, B; they may finish B, A (their frames are written as
// they finish) and may be asked for in any order in replay: each gets its
// own outcome.
//
// # Outcomes
//
// The Child calls run.Started once the child runs. What it then returns
// decides the recorded outcome:
//
//	error before Started            start-error         replay: *RecordedError
//	ctx done before Started         abort-before-start  replay: *RecordedError named AbortError
//	Result after Started            result              replay: that Result
//	error after Started             result-error        replay: *RecordedError
//	ctx done after Started          abort-after-start   both: Result{Output: [], StopReason: "aborted"}
//	ErrDisposed after Started       dispose             both: the same aborted Result
//
// Of an error only name, message and code are kept (RecordedError): a
// type, stack, cause or other fields do not survive. The start latency
// and the duration are kept in milliseconds.
//
// # Options
//
// Options is closed; Validate reports bad values, and Record and
// Replay refuse to start with one.
//
//	option               mode    default   meaning
//	requestStorage       record  metadata  metadata: label, prompt byte count, tool filter; full: also the redacted prompt, options, output schema
//	redactSecrets        record  true      secret-named members and credential patterns become "[REDACTED]"
//	redactionPatterns    record  none      extra RE2 patterns, case-insensitive; invalid or empty-matching ones refuse to start
//	writeMode            record  create    create refuses an existing cassette; truncate replaces it on Close; append continues it
//	timing               replay  instant   instant returns at once; recorded waits the recorded latency and duration
//	speed                replay  1         divides recorded delays; finite, at least 0.001; only with timing recorded
//	duplicatePolicy      replay  reject    reject refuses a group with differing outcomes; sequence serves it in occurrence order
//	allowRedactedReplay  replay  false     a result redaction rewrote refuses the cassette unless true
//	assertConsumed       replay  true      Close fails while recorded calls were not replayed
//
// Options.Now and Options.Sleep are the clock and the timer seams (nil:
// real ones).
//
// Redaction touches only what is stored: the prompt, options and output
// schema in full storage, the result output and error messages. A member
// whose name is a credential name (api_key, token, password, secret,
// authorization, cookie, private_key …, compared without case, "_" and
// "-") is replaced whole; counts such as maxTokens or inputTokens are not
// credential names. Inside strings, vendor-anchored credential patterns
// (sk-…, ghp_…, github_pat_…, AKIA…, xox…-, AIza…, JWTs, "Bearer …",
// PEM private keys) are replaced; tool-call ids and "sha256:<hex>" digests
// do not match them. The structural members type, mediaType, media_type
// and mimeType are never rewritten: a pattern that matches one refuses
// the recording instead. An interaction records whether redaction changed
// its outcome.
//
// # Writing
//
// Record takes a writer lock first: the directory <file>.lock, made with
// one mkdir. A second writer of the same cassette fails at once, in any
// mode. A lock left by a writer that died is never removed automatically;
// the error says to remove it by hand. Create writes through the
// protocol's exclusive <file>.partial and create-only publish. Truncate
// and append write <file>.next (through its own partial) and rename it
// over the cassette on Close, so the old cassette stays whole until the
// new one is complete. Append first verifies the existing cassette,
// refuses one recorded under another policy (request storage, redaction
// switch or patterns), copies its frames unchanged (same seq, prev and
// hash: the chain continues) and goes on with the next admission and the
// next occurrence of each group. Close publishes only when every admitted
// call has finished and every frame was written; otherwise the partial is
// kept and nothing is published.
//
// # Replay and misses
//
// Replay verifies the whole file before the first call: the protocol
// (chain, trailer, closed frames) and the topology (admissions 1, 2, …;
// each parent the root or an earlier call; each key derived from parent,
// label, fingerprints and occurrence; occurrences contiguous per group;
// request storage as the header says, metadata holding no prompt;
// outcome fields as their kind says). It then refuses, under
// duplicatePolicy reject, a group whose recorded outcomes differ (timing
// aside), and a redacted result unless allowRedactedReplay.
//
// A call without a recorded match returns a *MismatchError whose
// Diagnostic gives exactly one reason:
//
//	group-exhausted             the group was recorded and every occurrence was replayed
//	parent-context-changed      under this parent, the same request with another context
//	request-changed             under this parent, the same context with another request
//	parent-and-request-changed  calls under this parent, none sharing context or request
//	parent-not-found            no call was recorded under this parent path
//
// with the calls recorded under that parent as candidates, in admission
// order, each marked consumed or not. A diagnostic is metadata only: keys,
// fingerprints, occurrences, admission numbers; it never carries a prompt,
// a result or an error text. A miss changes nothing, so a corrected call
// afterwards still matches; Player.Diagnose is the same analysis without
// consuming. Candidates explain a miss; they are never matched fuzzily.
//
// With timing recorded a call waits its start latency, then the rest of
// its duration, divided by speed; a ctx done during the first wait yields
// an AbortError, during the second the aborted result.
//
// Close checks consumption: a recorded call under a replayed one is not
// owed (a replayed child never runs, so it cannot ask for its children).
//
// # Diff
//
// Diff aligns two cassettes on (parent key, context fingerprint, request
// fingerprint, occurrence) and reports each call removed, added,
// outcome-changed (same outcome kind; output, stop reason, error name,
// code or message differ, named but not shown) or boundary-changed (the
// outcome kind differs), and policy drift. Timing deltas are information
// only. Stop reasons are shown in buckets (StopBucket: completed,
// aborted, error, max-tokens, refusal, other), never raw. A group whose
// occurrences ended differently, or a request whose context inheritance
// changed, makes the two cassettes not safely comparable: Diff does not
// guess an alignment. `acpsnap cassette diff A B [-json] [-show-calls]`
// prints it (exit 0 equivalent, 1 different or not comparable, 2 usage,
// read or format error); Escape makes labels and keys safe for a terminal.
//
// # Limits
//
// The fingerprints cover what the parent can observe and hands over. A
// child that reads other state (files, clocks, the network) is not
// proven unchanged by a match: a match is an exact boundary match, not a
// proof of determinism.
//
// With requestStorage metadata no prompt is stored, but the unsalted
// fingerprints are: a low-entropy prompt or context can be guessed and
// checked against them. Results and error messages are stored. Treat a
// cassette as a sensitive file.
//
// The hash chain detects damage and truncation, not an attacker: whoever
// can edit the file can recompute every hash. Unlike formats without a
// trailer, where cutting a valid suffix leaves a valid file, the
// protocol's complete trailer (frame count and last hash) makes a removed
// suffix an error.
package subagent
