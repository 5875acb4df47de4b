package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Outcome kinds: how a recorded child call ended.
const (
	// OutcomeStartError: the child failed before it was running.
	OutcomeStartError = "start-error"
	// OutcomeResult: the child ran and returned a result.
	OutcomeResult = "result"
	// OutcomeResultError: the child ran and then failed.
	OutcomeResultError = "result-error"
	// OutcomeAbortBeforeStart: the parent cancelled before the child was running.
	OutcomeAbortBeforeStart = "abort-before-start"
	// OutcomeAbortAfterStart: the parent cancelled a running child.
	OutcomeAbortAfterStart = "abort-after-start"
	// OutcomeDispose: the parent disposed of a running child (ErrDisposed).
	OutcomeDispose = "dispose"
)

// StopAborted is the stop reason of the result an aborted or disposed
// child yields.
const StopAborted = "aborted"

// ErrDisposed is what a Child returns (possibly wrapped) when the parent
// disposed of it while it ran. Record and replay then both yield the
// aborted result.
var ErrDisposed = errors.New("subagent disposed")

// Result is a child's final output as the parent sees it.
type Result struct {
	Output     json.RawMessage `json:"output"`     // any JSON value; nil: null
	StopReason string          `json:"stopReason"` // e.g. "end_turn", "max_tokens", "aborted"
}

// abortedResult is what an abort after start or a dispose yields.
func abortedResult() Result { return Result{Output: json.RawMessage("[]"), StopReason: StopAborted} }

// RecordedError is a child error as a cassette keeps it: name, message and
// code only (no type, stack, cause or other fields survive).
type RecordedError struct {
	Name    string `json:"name"`           // "Error", "AbortError", "TimeoutError" or the error's ErrorName()
	Message string `json:"message"`        // redacted like everything stored
	Code    string `json:"code,omitempty"` // the error's ErrorCode(), if any
}

func (e *RecordedError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("%s [%s]: %s", e.Name, e.Code, e.Message)
	}
	return e.Name + ": " + e.Message
}

// recordError keeps the three fields of err. An error may name itself
// with an ErrorName() string method and give a code with ErrorCode()
// string.
func recordError(err error) *RecordedError {
	var re *RecordedError
	if errors.As(err, &re) {
		return &RecordedError{Name: re.Name, Message: re.Message, Code: re.Code}
	}
	e := &RecordedError{Name: "Error", Message: err.Error()}
	switch {
	case errors.Is(err, context.Canceled):
		e.Name = "AbortError"
	case errors.Is(err, context.DeadlineExceeded):
		e.Name = "TimeoutError"
	}
	var named interface{ ErrorName() string }
	if errors.As(err, &named) && named.ErrorName() != "" {
		e.Name = named.ErrorName()
	}
	var coded interface{ ErrorCode() string }
	if errors.As(err, &coded) {
		e.Code = coded.ErrorCode()
	}
	return e
}

// Outcome is how one recorded call ended, with its boundary timing.
type Outcome struct {
	Kind   string         `json:"kind"`             // one of the Outcome* constants
	Result *Result        `json:"result,omitempty"` // OutcomeResult only
	Error  *RecordedError `json:"error,omitempty"`  // the two error kinds and OutcomeAbortBeforeStart
	// StartMillis is the time from admission until the child was running
	// (-1: it never ran).
	StartMillis int64 `json:"startMillis"`
	// DurationMillis is the time from admission until the outcome.
	DurationMillis int64 `json:"durationMillis"`
}

// yield is what the parent gets for o: the result or the error.
func (o Outcome) yield() (Result, error) {
	switch o.Kind {
	case OutcomeResult:
		return *o.Result, nil
	case OutcomeAbortAfterStart, OutcomeDispose:
		return abortedResult(), nil
	}
	e := *o.Error
	return Result{}, &e
}

// StopBucket classifies a stop reason for display: "completed", "aborted",
// "error", "max-tokens", "refusal" or "other". The raw reason is never
// shown, so an unknown future value cannot leak.
func StopBucket(reason string) string {
	switch normalKey(reason) {
	case "endturn", "stop", "completed", "complete", "end", "success", "stopsequence", "done":
		return "completed"
	case "aborted", "abort", "cancelled", "canceled", "interrupted":
		return "aborted"
	case "error", "failed", "failure":
		return "error"
	case "maxtokens", "length", "maxoutputtokens", "maxturnrequests", "maxturns":
		return "max-tokens"
	case "refusal", "refused", "contentfilter", "safety":
		return "refusal"
	}
	return "other"
}

// bucket is the outcome's stop-reason bucket ("" when it has no result).
func (o Outcome) bucket() string {
	switch o.Kind {
	case OutcomeResult:
		return StopBucket(o.Result.StopReason)
	case OutcomeAbortAfterStart, OutcomeDispose:
		return "aborted"
	}
	return ""
}
