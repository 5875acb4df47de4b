// Package agentenv is the environment contract between acpsnap's harness
// and a native agent, one that writes its own session log as the reference
// agent does. It holds both halves of the contract. The harness builds the
// agent's environment with Harness.Environ. The agent reads it back with
// Load. When the agent replays, it writes its consumption Report at
// shutdown with WriteReport.
//
// An agent that writes no session log needs none of this: acpsnap records
// and replays its model traffic over HTTP instead (docs/agents.md).
//
// The variables and the rest of the agent's environment are listed in
// docs/agents.md ("The native contract"); the constants below name them.
package agentenv

import (
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acpsnap/acpsnap/internal/secretscan"
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

// Harness is what the harness gives one agent run.
type Harness struct {
	Mode            string   // Replay or Record; "": Replay
	SessionsDir     string   // required
	Permission      string   // "": auto
	Fixture         string   // "": none
	FixtureChildren []string // nil: none
	Override        string   // "": none
	Home, TmpDir    string   // the run's private HOME and TMPDIR; required
	Root            string   // the run's private root that holds them; "": not passed

	ToolCassette     string          // "": none
	ToolInclude      json.RawMessage // with ToolCassette
	SubagentCassette string          // "": none
	SubagentOptions  json.RawMessage // with SubagentCassette; nil: the defaults

	Env     map[string]string // the scenario's extra variables; nil: none
	Secrets map[string]string // passed in Record mode only; nil: none
	From    []string          // where PATH and GORACE come from; nil: os.Environ()
}

// Lang is the agent's LANG, the same on every machine, as TZ is: a locale
// the user's shell sets must not change what a run observes.
const Lang = "C.UTF-8"

// Environ is the agent's whole environment, in a stable order: PATH and
// GORACE (from From), LANG, TZ, HOME, TMPDIR, the scenario's variables
// (sorted), the contract, and in Record mode the secrets (sorted).
func (h Harness) Environ() []string {
	environ := h.From
	if environ == nil {
		environ = os.Environ()
	}
	var env []string
	for _, kv := range environ {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	env = append(env, "LANG="+Lang, "TZ=UTC", "HOME="+h.Home, "TMPDIR="+h.TmpDir)
	env = append(env, Sorted(h.Env)...)
	mode := cmp.Or(h.Mode, Replay)
	env = append(env, ModeVar+"="+mode, SessionsDirVar+"="+h.SessionsDir, PermissionVar+"="+cmp.Or(h.Permission, "auto"))
	if h.Root != "" {
		env = append(env, RootVar+"="+h.Root)
	}
	if h.Fixture != "" {
		env = append(env, FixtureVar+"="+h.Fixture)
	}
	if len(h.FixtureChildren) > 0 {
		env = append(env, FixtureChildrenVar+"="+strings.Join(h.FixtureChildren, string(os.PathListSeparator)))
	}
	if h.Override != "" {
		env = append(env, OverrideVar+"="+h.Override)
	}
	if h.ToolCassette != "" {
		env = append(env, ToolCassetteVar+"="+h.ToolCassette, ToolIncludeVar+"="+string(h.ToolInclude))
	}
	if h.SubagentCassette != "" {
		env = append(env, SubagentCassetteVar+"="+h.SubagentCassette)
		if h.SubagentOptions != nil {
			env = append(env, SubagentOptionsVar+"="+string(h.SubagentOptions))
		}
	}
	if mode == Record {
		env = append(env, Sorted(h.Secrets)...)
	}
	return env
}

// Foreign is the environment of an agent that is not native (it talks to
// its model over HTTP through acpsnap's proxy): PATH, LANG, TZ, HOME,
// TMPDIR and the scenario's variables; no ACPSNAP_* variable and no secret.
func (h Harness) Foreign() []string {
	env := h.Environ()
	out := env[:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, Prefix) && (h.Mode != Record || h.Secrets[name] == "") {
			out = append(out, kv)
		}
	}
	return out
}

// Owned reports whether the harness sets the variable name itself, so a
// scenario may not: HOME, TMPDIR, TZ, PATH, LANG and every ACPSNAP_ name.
func Owned(name string) bool {
	switch name {
	case "HOME", "TMPDIR", "TZ", "PATH", "LANG":
		return true
	}
	return strings.HasPrefix(name, Prefix)
}

// LooksSecret reports whether a variable name looks like it holds a
// credential (…_API_KEY, …_KEY, …_TOKEN, …_SECRET, …_PASSWORD, …),
// compared case-insensitively: the one rule secretscan applies too.
func LooksSecret(name string) bool { return secretscan.LooksSecret(name) }

// Sorted is m as NAME=value entries, sorted.
func Sorted(m map[string]string) []string {
	env := make([]string, 0, len(m))
	for k, v := range m {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}
