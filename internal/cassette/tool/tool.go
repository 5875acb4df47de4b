package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/acpsnap/acpsnap/internal/cassette"
	"github.com/acpsnap/acpsnap/internal/normalize"
)

// Body runs a tool for real and returns its result value (any JSON) or its
// error.
type Body func(ctx context.Context) (json.RawMessage, error)

// Cassette is what an agent wraps its tool execution with: a *Recorder or
// a *Player.
type Cassette interface {
	// Call runs one tool call through the cassette. path is the call's
	// structural path ("" or "root" for the top level, else the subagent
	// path the caller gives), name the tool, args its JSON arguments
	// (blank counts as {}). Unselected tools just run body.
	Call(ctx context.Context, path, name string, args json.RawMessage, body Body) (json.RawMessage, error)
	// Close ends the run: a Recorder publishes the cassette, a Player
	// reports extra calls, unconsumed records and a mismatch.
	Close() error
}

// Mode says whether Open records or replays.
type Mode string

// The modes.
const (
	Record Mode = "record"
	Replay Mode = "replay"
)

// Config configures Open.
type Config struct {
	Mode Mode
	// File is the cassette's path (tools.cassette.jsonl in a scenario).
	File string
	// Include selects the tools (see NewInclude). Record: required. Replay:
	// nil means the cassette's own; else it must equal the cassette's.
	Include []string
	// Paths are the run's folders (RunPaths): arguments, values and error
	// messages are stored and identified with {{cwd}}, {{home}} and
	// {{root}} in their place, and a replayed value gets today's folders
	// back. nil: everything is stored as given.
	Paths *normalize.Paths
}

// Open returns a Recorder or a Player for cfg.
func Open(cfg Config) (Cassette, error) {
	switch cfg.Mode {
	case Record:
		r, err := NewRecorder(cfg.File, cfg.Include)
		if err != nil {
			return nil, err
		}
		r.paths = cfg.Paths
		return r, nil
	case Replay:
		p, err := NewPlayer(cfg.File, cfg.Include)
		if err != nil {
			return nil, err
		}
		p.paths = cfg.Paths
		return p, nil
	}
	return nil, fmt.Errorf("tool cassette: mode %q: want %q or %q", cfg.Mode, Record, Replay)
}

// canonicalArgs returns the canonical form of a call's arguments, with
// the run's folders as tokens (p nil: none).
func canonicalArgs(p *normalize.Paths, args json.RawMessage) ([]byte, error) {
	if strings.TrimSpace(string(args)) == "" {
		return []byte("{}"), nil
	}
	c, err := cassette.Canonical(args)
	if err != nil {
		return nil, fmt.Errorf("arguments: %w", err)
	}
	return scrub(p, c)
}

// rootPath is the structural path of a top-level call.
const rootPath = "root"

func pathOf(p string) string {
	if p == "" {
		return rootPath
	}
	return p
}

// errClosed is a call after Close.
var errClosed = errors.New("tool cassette: closed")
