package subagent

import (
	"github.com/acpsnap/acpsnap/internal/cassette/subagent"
)

// Options are the settings of a recording or a replay: what a recording
// stores of a request (RequestStorage), what it redacts, how it writes an
// existing cassette (WriteMode), and how a replay times its outcomes
// (Timing, Speed), treats repeated calls (DuplicatePolicy) and closes
// (AssertConsumed). The zero value is the documented default of each;
// docs/cassettes.md ("Options") lists every value.
type Options = subagent.Options

// Boundary is where a parent starts children: a *Recorder or a *Player.
// Its Call starts one child, or replays its recorded outcome; Close ends
// the run. A parent holds one and does not care which.
type Boundary = subagent.Boundary

// Recorder runs each child and records its outcome. It is safe for
// concurrent use.
type Recorder = subagent.Recorder

// Record opens the cassette at path for recording: Options.WriteMode
// says what happens to an existing one. Close completes and publishes it.
func Record(path string, opts Options) (*Recorder, error) { return subagent.Record(path, opts) }

// Player serves recorded outcomes without running the children. It is
// safe for concurrent use.
type Player = subagent.Player

// Replay opens the cassette at path for replay. It is verified whole
// before any call is served.
func Replay(path string, opts Options) (*Player, error) { return subagent.Replay(path, opts) }

// Parent is the agent that starts a child, as the cassette identifies it:
// its path in the tree of agents (Path, "" or Root at the top), options,
// working directory as a token, delegation depth, permission mode and
// tools, and its conversation when the child inherits it.
type Parent = subagent.Parent

// Request is what the parent asks of the child: a label, the prompt, the
// child's options, the schema of its answer and its tools.
type Request = subagent.Request

// Root is the Path of the top-level agent.
const Root = subagent.Root

// Child runs the child a Recorder admits: run.Started marks the moment it
// runs. A child that fails before Started is a start error; after it, a
// result error. ctx is the parent's.
type Child = subagent.Child

// Run is one admitted child call; its Key is the Path of the children it
// starts.
type Run = subagent.Run

// Result is a child's answer: its output, any JSON, and why it stopped.
type Result = subagent.Result

// StopAborted is the StopReason of a child the parent cancelled or
// disposed of after it started.
const StopAborted = subagent.StopAborted

// ErrDisposed is what a child returns when the parent disposed of it.
var ErrDisposed = subagent.ErrDisposed

// RecordedError is a child's error served from a cassette: its name,
// message and code, not its type or cause.
type RecordedError = subagent.RecordedError

// MismatchError is a call a replay has no recording for. Its Diagnostic
// says why (the parent, its context or the request changed) and lists the
// recorded candidates, by metadata only: never a prompt.
type MismatchError = subagent.MismatchError

// Diagnostic is what a MismatchError says about a call.
type Diagnostic = subagent.Diagnostic

// ContextFingerprint is the fingerprint that identifies a parent's
// context: the canonical JSON of its identity, hashed. Two calls of one
// parent context and request are the same call, replayed in their
// occurrence order.
func ContextFingerprint(p Parent) (string, error) { return subagent.ContextFingerprint(p) }

// RequestFingerprint is the fingerprint that identifies a request.
func RequestFingerprint(r Request) (string, error) { return subagent.RequestFingerprint(r) }
