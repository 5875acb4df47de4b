package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/acpsnap/acpsnap/internal/cassette/subagent"
)

// Options are the settings of a recording or a replay. The zero value is
// the documented default of each; docs/cassettes.md ("Options") lists
// every value. An agent decodes them from its contract
// (agentenv.Agent.SubagentOptions, a JSON object).
type Options struct {
	// RequestStorage is what an interaction stores of its request:
	// "metadata" ("": the default) stores the label, the prompt's byte
	// count and the tool filter, never the prompt; "full" also stores the
	// redacted prompt, options and output schema. Record only.
	RequestStorage string `json:"requestStorage,omitempty" yaml:"requestStorage,omitempty"`
	// RedactSecrets replaces secret-named members and credential patterns
	// with "[REDACTED]" in what is stored (nil: true). Record only.
	RedactSecrets *bool `json:"redactSecrets,omitempty" yaml:"redactSecrets,omitempty"`
	// RedactionPatterns are extra regular expressions (Go RE2 syntax,
	// matched case-insensitively) whose matches are redacted; an invalid
	// one, or one that matches the empty string, refuses to start.
	// Record only.
	RedactionPatterns []string `json:"redactionPatterns,omitempty" yaml:"redactionPatterns,omitempty"`
	// WriteMode is "create" ("": the default; an existing cassette refuses
	// to record), "truncate" (an existing cassette is replaced when the
	// new one is complete) or "append" (the existing cassette is verified
	// and its chain continued). Record only.
	WriteMode string `json:"writeMode,omitempty" yaml:"writeMode,omitempty"`
	// Timing is "instant" ("": the default; replayed outcomes return at
	// once) or "recorded" (the recorded start latency and duration are
	// reproduced, divided by Speed). Replay only.
	Timing string `json:"timing,omitempty" yaml:"timing,omitempty"`
	// Speed divides recorded delays (0: 1; otherwise finite and at least
	// 0.001). Only with Timing "recorded".
	Speed float64 `json:"speed,omitempty" yaml:"speed,omitempty"`
	// DuplicatePolicy is "reject" ("": the default; an occurrence group
	// whose recorded outcomes differ refuses the whole cassette) or
	// "sequence" (such a group is served in occurrence order). Replay only.
	DuplicatePolicy string `json:"duplicatePolicy,omitempty" yaml:"duplicatePolicy,omitempty"`
	// AllowRedactedReplay lets a result that redaction rewrote be replayed
	// (false: such a cassette refuses to replay). Replay only.
	AllowRedactedReplay bool `json:"allowRedactedReplay,omitempty" yaml:"allowRedactedReplay,omitempty"`
	// AssertConsumed makes Player.Close fail while recorded interactions
	// were not replayed (nil: true). Replay only.
	AssertConsumed *bool `json:"assertConsumed,omitempty" yaml:"assertConsumed,omitempty"`

	// Now is the recorder's clock (nil: time.Now).
	Now func() time.Time `json:"-" yaml:"-"`
	// Sleep waits d or until ctx is done (nil: a real timer). Replay with
	// Timing "recorded" only.
	Sleep func(ctx context.Context, d time.Duration) error `json:"-" yaml:"-"`
}

// Boundary is where a parent starts children: a *Recorder or a *Player,
// so a parent holds one and does not care which.
type Boundary interface {
	// Call starts one child, or replays its recorded outcome.
	Call(ctx context.Context, parent Parent, req Request, child Child) (Result, error)
	// Close ends the run: a Recorder completes and publishes the
	// cassette, a Player reports recorded calls never replayed.
	Close() error
}

// Recorder runs each child and records its outcome. It is safe for
// concurrent use.
type Recorder struct{ r *subagent.Recorder }

// Record opens the cassette at path for recording: Options.WriteMode
// says what happens to an existing one.
func Record(path string, opts Options) (*Recorder, error) {
	r, err := subagent.Record(path, subagent.Options(opts))
	if err != nil {
		return nil, err
	}
	return &Recorder{r}, nil
}

// Call admits the child call of parent and req, runs child and records
// its outcome: whether it returned before or after run.Started, with a
// result, an error, a done ctx or ErrDisposed.
func (r *Recorder) Call(ctx context.Context, parent Parent, req Request, child Child) (Result, error) {
	res, err := r.r.Call(ctx, subagent.Parent(parent), subagent.Request(req), child.internal())
	return Result(res), public(err)
}

// Close completes and publishes the cassette; it fails while a call still
// runs.
func (r *Recorder) Close() error { return public(r.r.Close()) }

// Player serves recorded outcomes without running the children. It is
// safe for concurrent use.
type Player struct{ p *subagent.Player }

// Replay opens the cassette at path for replay. It is verified whole
// before any call is served.
func Replay(path string, opts Options) (*Player, error) {
	p, err := subagent.Replay(path, subagent.Options(opts))
	if err != nil {
		return nil, err
	}
	return &Player{p}, nil
}

// Call serves the recorded outcome of the call of parent and req; child
// is never run and may be nil. A call without a recording is a
// *MismatchError.
func (p *Player) Call(ctx context.Context, parent Parent, req Request, child Child) (Result, error) {
	res, err := p.p.Call(ctx, subagent.Parent(parent), subagent.Request(req), nil)
	return Result(res), public(err)
}

// Unconsumed lists the keys of the recorded calls not replayed yet.
func (p *Player) Unconsumed() []string { return p.p.Unconsumed() }

// Close fails while recorded calls were not replayed, unless
// Options.AssertConsumed is false.
func (p *Player) Close() error { return public(p.p.Close()) }

// Parent is what the child's caller can observe of the parent agent at
// the moment it starts the child. Everything but Path goes into the
// parent-context fingerprint; Path places the call in the tree of agents.
type Parent struct {
	// Path is the parent's path in the tree: "" or Root for the top-level
	// agent, else the Key of the call that started this parent.
	Path string
	// Options are the parent agent's options (any JSON value; nil: none).
	Options any
	// Cwd is the parent's working directory as a stable token ("$CWD"),
	// never an absolute path that differs between machines.
	Cwd string
	// Depth is the delegation depth: 0 for the top-level agent.
	Depth int
	// PermissionMode is the parent's permission mode ("default", "ask" …).
	PermissionMode string
	// Tools is the parent's tool set; its order does not matter.
	Tools []string
	// InheritsContext says the child starts from the parent's
	// conversation; Messages is then part of the fingerprint.
	InheritsContext bool
	// Messages is the model-visible message prefix of the parent's
	// completed turns (any JSON values). Volatile ids are removed and
	// tool-call ids renumbered before hashing. Ignored unless
	// InheritsContext.
	Messages []any
}

// Request is what the parent asks of the child.
type Request struct {
	Label        string   // the child's label ("explore", "review" …); required
	Prompt       string   // the child's prompt
	Options      any      // the child's options (any JSON value; nil: none)
	OutputSchema any      // the JSON schema the result must follow (nil: none)
	ToolFilter   []string // the tools the child may use (nil: all); order kept
}

// Root is the Path of the top-level agent.
const Root = subagent.Root

// Child runs the child a Recorder admits. It calls run.Started once the
// child runs: a child that fails before is a start error, after it a
// result error. ctx is the parent's; a child that sees it done returns. A
// child the parent disposed of returns ErrDisposed.
type Child func(ctx context.Context, run *Run) (Result, error)

func (c Child) internal() subagent.Child {
	if c == nil {
		return nil
	}
	return func(ctx context.Context, r *subagent.Run) (subagent.Result, error) {
		res, err := c(ctx, &Run{Key: r.Key, r: r})
		var re *RecordedError
		if errors.As(err, &re) {
			err = &subagent.RecordedError{Name: re.Name, Message: re.Message, Code: re.Code}
		}
		return subagent.Result(res), err
	}
}

// Run is one admitted child call.
type Run struct {
	// Key is the call's path in the tree of agents: the Parent.Path of the
	// children it starts.
	Key string
	r   *subagent.Run
}

// Started marks the child as running; later calls do nothing.
func (r *Run) Started() { r.r.Started() }

// Result is a child's final output as the parent sees it.
type Result struct {
	Output     json.RawMessage `json:"output"`     // any JSON value; nil: null
	StopReason string          `json:"stopReason"` // e.g. "end_turn", "max_tokens", "aborted"
}

// StopAborted is the StopReason of a child the parent cancelled or
// disposed of after it started.
const StopAborted = subagent.StopAborted

// ErrDisposed is what a child returns when the parent disposed of it.
var ErrDisposed = subagent.ErrDisposed

// RecordedError is a child's error as a cassette keeps it, and as a
// replay returns it: its name, message and code, not its type or cause.
type RecordedError struct {
	Name    string `json:"name"`           // "Error", "AbortError", "TimeoutError" or the error's ErrorName()
	Message string `json:"message"`        // redacted like everything stored
	Code    string `json:"code,omitempty"` // the error's ErrorCode(), if any
}

func (e *RecordedError) Error() string {
	return (&subagent.RecordedError{Name: e.Name, Message: e.Message, Code: e.Code}).Error()
}

// MismatchError is a call a replay has no recording for. Its Diagnostic
// says why, by metadata only: never a prompt, a result or an error text.
type MismatchError struct {
	Diagnostic Diagnostic
	msg        string
}

func (e *MismatchError) Error() string { return e.msg }

// ErrorCode is CASSETTE_MISMATCH, for a parent that reports error codes.
func (e *MismatchError) ErrorCode() string { return subagent.Code }

// Diagnostic is what a MismatchError says about a call: its parent, label
// and fingerprints, why it has no recording ("parent-not-found",
// "parent-context-changed", "request-changed",
// "parent-and-request-changed", "group-exhausted"), and the calls recorded
// under the same parent.
type Diagnostic struct {
	Reason             string      `json:"reason,omitempty"`
	Parent             string      `json:"parent"`
	Label              string      `json:"label"`
	ContextFingerprint string      `json:"contextFingerprint"`
	RequestFingerprint string      `json:"requestFingerprint"`
	Candidates         []Candidate `json:"candidates,omitempty"`
}

// Candidate is the metadata of one recorded call.
type Candidate struct {
	Admission          int    `json:"admission"`
	Key                string `json:"key"`
	Occurrence         int    `json:"occurrence"`
	ContextFingerprint string `json:"contextFingerprint"`
	RequestFingerprint string `json:"requestFingerprint"`
	Consumed           bool   `json:"consumed"`
}

// public is err as this package's error value when it is one of the
// implementation's; other errors are returned as they are.
func public(err error) error {
	if re, ok := err.(*subagent.RecordedError); ok {
		return &RecordedError{Name: re.Name, Message: re.Message, Code: re.Code}
	}
	if me, ok := err.(*subagent.MismatchError); ok {
		d := me.Diagnostic
		out := &MismatchError{msg: me.Error(), Diagnostic: Diagnostic{Reason: d.Reason, Parent: d.Parent, Label: d.Label,
			ContextFingerprint: d.ContextFingerprint, RequestFingerprint: d.RequestFingerprint}}
		for _, c := range d.Candidates {
			out.Diagnostic.Candidates = append(out.Diagnostic.Candidates, Candidate(c))
		}
		return out
	}
	return err
}

// ContextFingerprint is the fingerprint of a parent's context:
// "sha256:" and the hex of the canonical JSON of everything but its Path.
// Calls with the same parent path, context and request are one group,
// replayed in their occurrence order.
func ContextFingerprint(p Parent) (string, error) {
	return subagent.ContextFingerprint(subagent.Parent(p))
}

// RequestFingerprint is the fingerprint of a request: "sha256:" and the
// hex of its canonical JSON, taken before any redaction.
func RequestFingerprint(r Request) (string, error) {
	return subagent.RequestFingerprint(subagent.Request(r))
}
