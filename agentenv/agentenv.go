package agentenv

import (
	"encoding/json"
	"fmt"
	"path/filepath"
)

// Prefix starts the name of every variable of the contract; the harness
// owns every name with it.
const Prefix = "ACPSNAP_"

// The contract's variables.
const (
	ModeVar            = Prefix + "MODE"
	SessionsDirVar     = Prefix + "SESSIONS_DIR"
	RootVar            = Prefix + "ROOT"
	PermissionVar      = Prefix + "PERMISSION"
	FixtureVar         = Prefix + "FIXTURE"
	FixtureChildrenVar = Prefix + "FIXTURE_CHILDREN"
	OverrideVar        = Prefix + "OVERRIDE"

	ToolCassetteVar     = Prefix + "TOOL_CASSETTE"
	ToolIncludeVar      = Prefix + "TOOL_INCLUDE"
	SubagentCassetteVar = Prefix + "SUBAGENT_CASSETTE"
	SubagentOptionsVar  = Prefix + "SUBAGENT_OPTIONS"
)

// Modes.
const (
	Replay = "replay"
	Record = "record"
)

// Agent is the contract as an agent reads it.
type Agent struct {
	Mode            string   // Replay, Record, or "" outside acpsnap
	SessionsDir     string   // "": outside acpsnap (the agent picks its own)
	Root            string   // the run's private root (it holds cwd, HOME, TMPDIR); "": outside acpsnap
	Permission      string   // "auto", "ask", or "" outside acpsnap
	Fixture         string   // "": no primary replay source
	FixtureChildren []string // nil: none
	Override        string   // "": none

	ToolCassette     string          // "": no tool cassette
	ToolInclude      json.RawMessage // the selected tools (a JSON array); nil: none
	SubagentCassette string          // "": no subagent cassette
	SubagentOptions  json.RawMessage // a JSON object; nil: the defaults
}

// Load reads the contract with getenv (os.Getenv in an agent's main). An
// unknown mode or permission is an error.
func Load(getenv func(string) string) (Agent, error) {
	a := Agent{
		Mode:        getenv(ModeVar),
		SessionsDir: getenv(SessionsDirVar),
		Root:        getenv(RootVar),
		Permission:  getenv(PermissionVar),
		Fixture:     getenv(FixtureVar),
		Override:    getenv(OverrideVar),

		ToolCassette:     getenv(ToolCassetteVar),
		SubagentCassette: getenv(SubagentCassetteVar),
	}
	if v := getenv(ToolIncludeVar); v != "" {
		a.ToolInclude = json.RawMessage(v)
	}
	if v := getenv(SubagentOptionsVar); v != "" {
		a.SubagentOptions = json.RawMessage(v)
	}
	if l := getenv(FixtureChildrenVar); l != "" {
		a.FixtureChildren = filepath.SplitList(l)
	}
	switch {
	case a.Mode != "" && a.Mode != Replay && a.Mode != Record:
		return a, fmt.Errorf("agentenv: %s=%q: want %s, %s or unset", ModeVar, a.Mode, Replay, Record)
	case a.Permission != "" && a.Permission != "auto" && a.Permission != "ask":
		return a, fmt.Errorf("agentenv: %s=%q: want auto, ask or unset", PermissionVar, a.Permission)
	case a.Mode == Replay && a.Fixture == "":
		return a, fmt.Errorf("agentenv: %s=%s but no %s", ModeVar, Replay, FixtureVar)
	case a.ToolInclude != nil && !json.Valid(a.ToolInclude):
		return a, fmt.Errorf("agentenv: %s is not JSON", ToolIncludeVar)
	case a.SubagentOptions != nil && !json.Valid(a.SubagentOptions):
		return a, fmt.Errorf("agentenv: %s is not JSON", SubagentOptionsVar)
	}
	return a, nil
}
