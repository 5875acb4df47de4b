package tool

import (
	"github.com/acpsnap/acpsnap/internal/cassette/tool"
	"github.com/acpsnap/acpsnap/internal/normalize"
)

// Mode says whether Open records or replays.
type Mode = tool.Mode

// The modes.
const (
	Record = tool.Record // run the selected tools for real, and record them
	Replay = tool.Replay // serve the selected tools from the cassette; their bodies never run
)

// Config says which cassette Open opens, and how: Mode, File (the
// cassette's path, tools.cassette.jsonl in a scenario), Include (the
// selected tools; in replay nil means the cassette's own selection) and
// Paths (the run's folders, from RunPaths; nil: stored as given).
type Config = tool.Config

// Body runs a tool for real and returns its result value, any JSON, or its
// error.
type Body = tool.Body

// Cassette is what an agent wraps its tool execution with. Call runs one
// tool call through it: path is the call's structural path ("" for the
// top level, else the subagent path the agent gives), name the tool and
// args its JSON arguments. An unselected tool just runs its body. Close
// ends the run: in record mode it publishes the cassette, in replay it
// reports a mismatch, an extra call or a recorded call never made.
type Cassette = tool.Cassette

// Open opens the cassette of cfg for recording or for replay.
func Open(cfg Config) (Cassette, error) { return tool.Open(cfg) }

// Include is a selection of tools: exact names, and patterns where '*'
// matches any run of characters. Its Match reports whether a tool is
// selected.
type Include = tool.Include

// NewInclude checks and compiles the patterns of a selection: at least
// one, none blank or given twice.
func NewInclude(patterns []string) (*Include, error) { return tool.NewInclude(patterns) }

// Paths are the folders of one run: the working directory, HOME and the
// run's root. A cassette stores them as {{cwd}}, {{home}} and {{root}},
// so a recording replays in the next run's folders.
type Paths = normalize.Paths

// RunPaths are the folders of the run an agent is in: its working
// directory, its HOME, and the root acpsnap gives it (ACPSNAP_ROOT).
func RunPaths(cwd, home, root string) *Paths { return tool.RunPaths(cwd, home, root) }

// ErrMismatch matches (errors.Is) the error of every call replay refuses:
// the first one that differs from the cassette, and every selected call
// after it.
var ErrMismatch = tool.ErrMismatch

// MismatchError is a call replay refuses. It names the call by ordinal,
// path and tool, and its arguments by fingerprint only; it never carries
// arguments or results.
type MismatchError = tool.MismatchError

// RecordedError is a tool error served from a cassette: the error the body
// returned when it was recorded, by its message.
type RecordedError = tool.RecordedError
