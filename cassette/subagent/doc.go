// Package subagent records a child agent's run at its boundary, and
// replays it without starting the child, its model or its log: the parent
// gets the recorded outcome. A native agent that starts subagents wraps
// the function that runs a child.
//
// Recording runs the child:
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
// not care which; both are safe for concurrent use. Whether the child
// returned before or after run.Started, with a result, an error, a done
// ctx or ErrDisposed, decides the recorded outcome. A replayed error is a
// *RecordedError. A call without a recording is a *MismatchError, whose
// Diagnostic holds metadata only.
//
// A native agent finds the cassette and its options in its contract
// (agentenv.Agent's SubagentCassette and SubagentOptions).
// docs/cassettes.md ("Subagent cassette") specifies how a call is
// identified, the frames, the outcomes, the options, redaction, writing,
// misses and limits.
package subagent
