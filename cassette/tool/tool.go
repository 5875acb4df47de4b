package tool

import (
	"context"
	"encoding/json"

	"github.com/acpsnap/acpsnap/internal/cassette/tool"
	"github.com/acpsnap/acpsnap/internal/normalize"
)

// Mode says whether Open records or replays.
type Mode string

// The modes.
const (
	Record Mode = "record" // run the selected tools for real, and record them
	Replay Mode = "replay" // serve the selected tools from the cassette; their bodies never run
)

// Config says which cassette Open opens, and how.
type Config struct {
	Mode Mode
	// File is the cassette's path: tools.cassette.jsonl in a scenario.
	File string
	// Include selects the tools (NewInclude says how). Record: required.
	// Replay: nil means the cassette's own selection; another one is
	// refused.
	Include []string
	// Paths are the run's folders (RunPaths): they are stored as {{cwd}},
	// {{home}} and {{root}}, and a replayed value gets today's folders
	// back. nil: everything is stored as given.
	Paths *Paths
}

// Body runs a tool for real and returns its result value, any JSON, or its
// error.
type Body func(ctx context.Context) (json.RawMessage, error)

// Cassette is what an agent wraps its tool execution with.
type Cassette interface {
	// Call runs one tool call through the cassette: path is the call's
	// structural path ("" for the top level, else the subagent path the
	// agent gives), name the tool and args its JSON arguments. An
	// unselected tool just runs body.
	Call(ctx context.Context, path, name string, args json.RawMessage, body Body) (json.RawMessage, error)
	// Close ends the run: in record mode it publishes the cassette, in
	// replay it reports a mismatch, an extra call or a recorded call never
	// made.
	Close() error
}

// Open opens the cassette of cfg for recording or for replay.
func Open(cfg Config) (Cassette, error) {
	var paths *normalize.Paths
	if cfg.Paths != nil {
		paths = cfg.Paths.p
	}
	c, err := tool.Open(tool.Config{Mode: tool.Mode(cfg.Mode), File: cfg.File, Include: cfg.Include, Paths: paths})
	if err != nil {
		return nil, err
	}
	return cassette{c}, nil
}

// cassette is the implementation's cassette, its errors made this
// package's.
type cassette struct{ c tool.Cassette }

func (c cassette) Call(ctx context.Context, path, name string, args json.RawMessage, body Body) (json.RawMessage, error) {
	v, err := c.c.Call(ctx, path, name, args, tool.Body(body))
	return v, public(err)
}

func (c cassette) Close() error { return public(c.c.Close()) }

// public is err as this package's error value when it is one of the
// implementation's; other errors, and errors that join several, are
// returned as they are (errors.Is(err, ErrMismatch) holds for them too).
func public(err error) error {
	switch e := err.(type) {
	case *tool.MismatchError:
		return mismatch(e)
	case *tool.RecordedError:
		return &RecordedError{Message: e.Message}
	}
	return err
}

// Include is a selection of tools: exact names, and patterns where '*'
// matches any run of characters. Unselected tools run as usual.
type Include struct{ inc *tool.Include }

// NewInclude checks and compiles the patterns of a selection: at least
// one, none blank or given twice.
func NewInclude(patterns []string) (*Include, error) {
	inc, err := tool.NewInclude(patterns)
	if err != nil {
		return nil, err
	}
	return &Include{inc}, nil
}

// Match reports whether the tool name is selected.
func (inc *Include) Match(name string) bool { return inc.inc.Match(name) }

// Paths are the folders of one run: the working directory, HOME and the
// run's root. A cassette stores them as {{cwd}}, {{home}} and {{root}},
// so a recording replays in the next run's folders.
type Paths struct{ p *normalize.Paths }

// RunPaths are the folders of the run an agent is in: its working
// directory, its HOME, and the root acpsnap gives it (ACPSNAP_ROOT).
func RunPaths(cwd, home, root string) *Paths { return &Paths{tool.RunPaths(cwd, home, root)} }

// Scrub replaces the run's folders in s with their tokens, as a cassette
// stores them.
func (p *Paths) Scrub(s string) string { return p.p.Scrub(s) }

// Expand replaces the tokens in s with the run's folders.
func (p *Paths) Expand(s string) string { return p.p.Expand(s) }

// ErrMismatch matches (errors.Is) every *MismatchError.
var ErrMismatch = tool.ErrMismatch

// MismatchError is a selected call replay refuses: the first one that
// differs from the cassette (in path, tool, arguments or order, or a call
// beyond the recorded ones), and every selected call after it, which the
// first one poisoned. It names the call by ordinal, path and tool, and its
// arguments by fingerprint only; it never carries arguments or results.
type MismatchError struct {
	Ordinal int    // the call's ordinal in start order at its path
	Path    string // the call's structural path
	Tool    string
	Reason  string         // what differs: "arguments differ (sha256:…, recorded sha256:…)"
	Cause   *MismatchError // for a call refused because the player is poisoned: the first mismatch
	msg     string
}

func mismatch(e *tool.MismatchError) *MismatchError {
	if e == nil {
		return nil
	}
	return &MismatchError{Ordinal: e.Ordinal, Path: e.Path, Tool: e.Tool, Reason: e.Reason, Cause: mismatch(e.Cause), msg: e.Error()}
}

func (e *MismatchError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrMismatch) true.
func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

// RecordedError is a tool error served from a cassette: the error the body
// returned when it was recorded, by its message.
type RecordedError struct {
	Message string
}

func (e *RecordedError) Error() string { return e.Message }
