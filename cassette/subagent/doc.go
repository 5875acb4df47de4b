// Package subagent records a child agent's run at its boundary, and replays
// it without starting the child, its model or its log. The parent gets the
// recorded outcome. It is the subagent cassette, on the hash-chained
// protocol of package cassette. docs/cassettes.md ("Subagent cassette")
// specifies its identity rules, frames, outcomes, options, redaction,
// writing, misses, diff and limits.
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
// not care which. Both are safe for concurrent use. The recorded outcome
// kind depends on how the child returned: before or after run.Started,
// with an error, a result, a done ctx or ErrDisposed. A replayed error is a
// *RecordedError, with its name, message and code only. A call without a
// match is a *MismatchError, whose Diagnostic is metadata only. Diff
// compares two cassettes, as `acpsnap cassette diff` does. Escape makes
// labels and keys safe for a terminal.
package subagent
