package check

import (
	"fmt"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/probe"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// noted is o with the notes of what it wrote (Outcome.Notes), when it
// wrote the run res (its transcript got, pinned with pins).
func (o Outcome) noted(res *harness.Result, got *scenario.Transcript, pins *httplog.Pins) Outcome {
	if o.Status == Passed && len(o.Wrote) > 0 {
		o.Notes = writeNotes(res, got, pins)
	}
	return o
}

// writeNotes are what a write of an HTTP agent's run tells beside the files
// it wrote: each error call the agent retried (probe.Retries), whose
// scenario then records the retry's answer, not the error.
func writeNotes(res *harness.Result, got *scenario.Transcript, pins *httplog.Pins) []string {
	if res == nil || res.Tokens == nil || pins == nil || got == nil || len(got.Logs) == 0 {
		return nil
	}
	_, xs, err := httplog.Decompose(got.Logs[0], scenario.SessionFile, pins)
	if err != nil {
		return nil
	}
	var out []string
	for _, r := range probe.Retries(requestsOf(xs)) {
		out = append(out, fmt.Sprintf("model call %d repeats call %d right after its status %d: %s", r.Call, r.Call-1, r.Status, probe.RetryAdvice))
	}
	return out
}

// requestsOf are the exchanges' requests as probe reads them, each with
// the status it was answered with.
func requestsOf(xs []httplog.Exchange) []probe.Request {
	out := make([]probe.Request, len(xs))
	for i, x := range xs {
		out[i] = probe.Request{Method: x.Request.Method, Path: x.Request.Path, Header: x.Request.Header, Body: x.Request.Body, Status: x.Response.Status}
	}
	return out
}
