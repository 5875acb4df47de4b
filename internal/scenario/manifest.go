package scenario

import (
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/internal/cassette/subagent"
	"github.com/acpsnap/acpsnap/internal/cassette/tool"
	"github.com/acpsnap/acpsnap/internal/secrets"
	"go.yaml.in/yaml/v3"
)

// Manifest is a scenario's snapshot.yml (docs/format.md, "Scenario folder"). The schema is closed:
// unknown keys are errors.
type Manifest struct {
	Version   int    `yaml:"version"`   // always 1
	Scenario  string `yaml:"scenario"`  // equals the folder name, kebab-case
	Reason    string `yaml:"reason"`    // why the scenario exists; non-empty
	Recording string `yaml:"recording"` // "live" (re-recorded by record) or "authored" (never)
	Replay    struct {
		Override bool `yaml:"override"` // replay.override.json exists
	} `yaml:"replay,omitempty"`
	Permission string            `yaml:"permission,omitempty"` // "auto" or "ask"; "": auto
	Env        map[string]string `yaml:"env,omitempty"`        // extra agent environment
	Platform   string            `yaml:"platform,omitempty"`   // "": any; "posix": skip elsewhere
	// Agent.Env adds to (and overrides) the corpus's agent.env; templated.
	Agent struct {
		Env map[string]string `yaml:"env,omitempty"`
	} `yaml:"agent,omitempty"`
	Scrub    []ScrubRule `yaml:"scrub,omitempty"`    // applied after the corpus's scrub rules
	Floating []string    `yaml:"floating,omitempty"` // added to the corpus's floating kinds
	// Tools selects tool calls for the tool cassette (tools.cassette.jsonl);
	// nil: no tool cassette.
	Tools *struct {
		Include []string `yaml:"include"`
	} `yaml:"tools,omitempty"`
	// Subagents asks for the subagent cassette (subagents.cassette.jsonl)
	// with these options; nil: children run against their own logs.
	Subagents *struct {
		Cassette subagent.Options `yaml:"cassette"`
	} `yaml:"subagents,omitempty"`
}

var (
	kebabCase = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	envName   = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	yamlLine  = regexp.MustCompile(`^line (\d+): `)
)

// LoadManifest reads and validates the manifest at path. The folder that
// holds it names the scenario. Errors read "scenario: path:line: what".
func LoadManifest(path string) (*Manifest, error) {
	b, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: load manifest: %w", err)
	}
	m, err := decodeManifest(b, path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return m, nil
}

// decodeManifest decodes strictly (KnownFields), then validates against
// the positions of the node tree.
func decodeManifest(b []byte, path string) (*Manifest, error) {
	var m Manifest
	root, err := decodeStrict(b, path, &m)
	if err != nil {
		if strings.HasSuffix(err.Error(), ":1: empty file") {
			return nil, fmt.Errorf("%s:1: empty manifest", path)
		}
		return nil, err
	}
	folder := filepath.Base(filepath.Dir(path))
	if abs, err := filepath.Abs(path); err == nil {
		folder = filepath.Base(filepath.Dir(abs))
	}
	if key, msg := m.validate(folder); msg != "" {
		return nil, fmt.Errorf("%s:%d: %s", path, nodeLine(root, key), msg)
	}
	return &m, nil
}

// validate returns the offending top-level key and a message, or "", "".
func (m *Manifest) validate(folder string) (key, msg string) {
	switch {
	case m.Version != 1:
		return "version", fmt.Sprintf("version is %d, want 1", m.Version)
	case m.Scenario == "":
		return "scenario", "scenario is required"
	case !kebabCase.MatchString(m.Scenario):
		return "scenario", fmt.Sprintf("scenario %q is not kebab-case", m.Scenario)
	case m.Scenario != folder:
		return "scenario", fmt.Sprintf("scenario %q does not match its folder %q", m.Scenario, folder)
	case strings.TrimSpace(m.Reason) == "":
		return "reason", "reason is required"
	case m.Recording != "live" && m.Recording != "authored":
		return "recording", fmt.Sprintf("recording is %q, want live or authored", m.Recording)
	case m.Permission != "" && m.Permission != "auto" && m.Permission != "ask":
		return "permission", fmt.Sprintf("permission is %q, want auto or ask", m.Permission)
	case m.Platform != "" && m.Platform != "posix":
		return "platform", fmt.Sprintf("platform is %q, want posix or nothing", m.Platform)
	}
	for name := range m.Env {
		if msg := checkEnvName(name); msg != "" {
			return "env", msg
		}
	}
	if msg := checkAgentEnv(m.Agent.Env); msg != "" {
		return "agent.env", msg
	}
	if key, msg := compileScrub("scrub", m.Scrub); msg != "" {
		return key, msg
	}
	if m.Tools != nil {
		if _, err := tool.NewInclude(m.Tools.Include); err != nil {
			return "tools.include", fmt.Sprintf("tools.include: %v", err)
		}
	}
	if m.Subagents != nil {
		if err := m.Subagents.Cassette.Validate(); err != nil {
			return "subagents.cassette", fmt.Sprintf("subagents.cassette: %v", err)
		}
	}
	return checkFloating("floating", m.Floating)
}

// checkEnvName refuses names that are not variables, the names the
// harness owns (HOME, TMPDIR, TZ, PATH, LANG, ACPSNAP_*) and names that
// look like credentials: secrets reach the agent in record mode only, from
// the environment, never from a committed file.
func checkEnvName(name string) string {
	switch {
	case !envName.MatchString(name):
		return fmt.Sprintf("env: %q is not a variable name", name)
	case owned(name):
		return fmt.Sprintf("env: %s is set by the harness", name)
	case secrets.LooksSecret(name):
		return fmt.Sprintf("env: %s is a secret; it reaches the agent in record mode only", name)
	}
	return ""
}

// yamlError turns "yaml: line 3: msg" into "path:3: msg".
func yamlError(path string, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		return fmt.Errorf("%s", yamlPositioned(path, te.Errors[0]))
	}
	return fmt.Errorf("%s", yamlPositioned(path, strings.TrimPrefix(err.Error(), "yaml: ")))
}

func yamlPositioned(path, msg string) string {
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		msg = strings.TrimPrefix(msg, m[0])
		msg = strings.Replace(msg, " in type scenario.Manifest", "", 1)
		return fmt.Sprintf("%s:%d: %s", path, n, msg)
	}
	return fmt.Sprintf("%s: %s", path, msg)
}

// owned reports whether the harness sets the variable name itself, so a
// scenario may not: HOME, TMPDIR, TZ, PATH, LANG and every ACPSNAP_ name.
func owned(name string) bool {
	switch name {
	case "HOME", "TMPDIR", "TZ", "PATH", "LANG":
		return true
	}
	return strings.HasPrefix(name, agentenv.Prefix)
}
