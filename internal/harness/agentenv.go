package harness

import (
	"cmp"
	"encoding/json"
	"os"
	"sort"
	"strings"

	"github.com/acpsnap/acpsnap/agentenv"
)

// AgentEnv is the environment the harness gives one run of an agent: the
// harness's half of the contract of package agentenv, whose Load reads it
// back (docs/agents.md, "The native contract").
type AgentEnv struct {
	Mode            string   // agentenv.Replay or agentenv.Record; "": agentenv.Replay
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
	Secrets map[string]string // passed in agentenv.Record mode only; nil: none
	From    []string          // where PATH and GORACE come from; nil: os.Environ()
}

// agentLang is the agent's LANG, the same on every machine, as TZ is: a locale
// the user's shell sets must not change what a run observes.
const agentLang = "C.UTF-8"

// Environ is the agent's whole environment, in a stable order: PATH and
// GORACE (from From), LANG, TZ, HOME, TMPDIR, the scenario's variables
// (sorted), the contract, and in agentenv.Record mode the secrets (sorted).
func (h AgentEnv) Environ() []string {
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
	env = append(env, "LANG="+agentLang, "TZ=UTC", "HOME="+h.Home, "TMPDIR="+h.TmpDir)
	env = append(env, sortedEnv(h.Env)...)
	mode := cmp.Or(h.Mode, agentenv.Replay)
	env = append(env, agentenv.ModeVar+"="+mode, agentenv.SessionsDirVar+"="+h.SessionsDir, agentenv.PermissionVar+"="+cmp.Or(h.Permission, "auto"))
	if h.Root != "" {
		env = append(env, agentenv.RootVar+"="+h.Root)
	}
	if h.Fixture != "" {
		env = append(env, agentenv.FixtureVar+"="+h.Fixture)
	}
	if len(h.FixtureChildren) > 0 {
		env = append(env, agentenv.FixtureChildrenVar+"="+strings.Join(h.FixtureChildren, string(os.PathListSeparator)))
	}
	if h.Override != "" {
		env = append(env, agentenv.OverrideVar+"="+h.Override)
	}
	if h.ToolCassette != "" {
		env = append(env, agentenv.ToolCassetteVar+"="+h.ToolCassette, agentenv.ToolIncludeVar+"="+string(h.ToolInclude))
	}
	if h.SubagentCassette != "" {
		env = append(env, agentenv.SubagentCassetteVar+"="+h.SubagentCassette)
		if h.SubagentOptions != nil {
			env = append(env, agentenv.SubagentOptionsVar+"="+string(h.SubagentOptions))
		}
	}
	if mode == agentenv.Record {
		env = append(env, sortedEnv(h.Secrets)...)
	}
	return env
}

// Foreign is the environment of an agent that is not native (it talks to
// its model over HTTP through acpsnap's proxy): PATH, LANG, TZ, HOME,
// TMPDIR and the scenario's variables; no ACPSNAP_* variable and no secret.
func (h AgentEnv) Foreign() []string {
	env := h.Environ()
	out := env[:0]
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, agentenv.Prefix) && (h.Mode != agentenv.Record || h.Secrets[name] == "") {
			out = append(out, kv)
		}
	}
	return out
}

// sortedEnv is m as NAME=value entries, sorted.
func sortedEnv(m map[string]string) []string {
	env := make([]string, 0, len(m))
	for k, v := range m {
		env = append(env, k+"="+v)
	}
	sort.Strings(env)
	return env
}
