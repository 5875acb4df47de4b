package cli

import (
	"fmt"
	"io"

	"github.com/acpsnap/acpsnap/internal/cassette/subagent"
)

// listedCall is one recorded call of a subagent cassette as inspect
// -show-calls lists it: metadata only (never a prompt, a result or an
// error text).
type listedCall struct {
	Admission      int    `json:"admission"`
	Key            string `json:"key"`
	Occurrence     int    `json:"occurrence"`
	Outcome        string `json:"outcome"` // the kind, with the stop bucket of a result ("result/completed")
	StartMillis    int64  `json:"startMillis"`
	DurationMillis int64  `json:"durationMillis"`
	Redacted       bool   `json:"redacted,omitempty"`
}

// subagentCalls lists the calls of the subagent cassette at file, in
// admission order.
func subagentCalls(file string) ([]listedCall, error) {
	c, err := subagent.Load(file)
	if err != nil {
		return nil, err
	}
	calls := []listedCall{}
	for _, it := range c.Interactions {
		calls = append(calls, listedCall{Admission: it.Admission, Key: it.Key, Occurrence: it.Occurrence,
			Outcome: outcomeSummary(it.Outcome), StartMillis: it.Outcome.StartMillis,
			DurationMillis: it.Outcome.DurationMillis, Redacted: it.Redacted})
	}
	return calls, nil
}

// outcomeSummary is the outcome kind, and for a result its stop bucket
// (never the raw stop reason).
func outcomeSummary(o subagent.Outcome) string {
	if o.Kind == subagent.OutcomeResult && o.Result != nil {
		return o.Kind + "/" + subagent.StopBucket(o.Result.StopReason)
	}
	return o.Kind
}

// writeCalls is the text form of the listed calls, keys escaped.
func writeCalls(w io.Writer, calls []listedCall) {
	fmt.Fprintln(w, "calls (admission order):")
	for _, c := range calls {
		red := ""
		if c.Redacted {
			red = ", redacted"
		}
		fmt.Fprintf(w, "  %d %s (%s; start %dms, duration %dms%s)\n", c.Admission, subagent.Escape(c.Key), subagent.Escape(c.Outcome), c.StartMillis, c.DurationMillis, red)
	}
}
