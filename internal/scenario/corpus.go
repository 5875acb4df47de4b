package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/conformance"
	"github.com/acpsnap/acpsnap/internal/secrets"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
	"go.yaml.in/yaml/v3"
)

// CorpusFile is the optional corpus configuration at a corpus root.
const CorpusFile = "acpsnap.yml"

// DialectNative (Corpus.Model.Dialect) says the agent writes its own
// session log (docs/agents.md); any other dialect is a name of the dialect
// table, internal/wire/dialect.
const DialectNative = "native"

// Shutdown policies (Corpus.Agent.Shutdown).
const (
	ShutdownEOF  = "eof"  // the agent must exit on stdin EOF
	ShutdownTerm = "term" // SIGTERM after stdin EOF is normal
)

// Corpus is a corpus's acpsnap.yml (docs/format.md, "Corpus
// configuration"). The schema is closed: unknown keys are errors. A corpus
// without the file is native and runs the reference agent.
type Corpus struct {
	Version int         `yaml:"version"` // always 1
	Agent   CorpusAgent `yaml:"agent,omitempty"`
	Model   CorpusModel `yaml:"model,omitempty"`
	// Scrub rules are extra normalization, on stdout and the logs, on both
	// sides; a scenario's manifest may add its own after these.
	Scrub []ScrubRule `yaml:"scrub,omitempty"`
	// Floating are session/update kinds compared as a set per session
	// rather than in wire order (available_commands_update, …).
	Floating []string `yaml:"floating,omitempty"`
	// Settle is how long stdout must stay quiet before shutdown; 0: none.
	Settle time.Duration `yaml:"settle,omitempty"`
	// Ready is what every newSession step waits for after session/new
	// answers, so no scenario's first prompt races it.
	Ready CorpusReady `yaml:"ready,omitempty"`
	// Probe is what `acpsnap probe` knows of the agent already.
	Probe CorpusProbe `yaml:"probe,omitempty"`
	// Conformance is what the corpus acknowledges of the protocol's rules.
	Conformance CorpusConformance `yaml:"conformance,omitempty"`

	// Path is the file the configuration came from ("" for the default).
	Path string `yaml:"-"`
}

// CorpusAgent says which agent the corpus tests and how to start it.
type CorpusAgent struct {
	// Command is the agent's argv, templated ({{model.url}}, {{model.key}},
	// {{home}}, {{cwd}}, {{root}}, {{corpus}}, {{path}}); nil: the
	// reference agent.
	Command []string `yaml:"command,omitempty"`
	// Env is extra environment for the agent, templated like Command.
	Env map[string]string `yaml:"env,omitempty"`
	// Shutdown is ShutdownEOF (""), or ShutdownTerm for agents that ignore
	// stdin EOF.
	Shutdown string `yaml:"shutdown,omitempty"`
	// Home is a folder, relative to the corpus root, copied into the run's
	// private HOME with its text files templated; "": none.
	Home string `yaml:"home,omitempty"`
	// Grace is how long the agent gets to exit at each stage of shutdown
	// when the run sets none (-grace); 0: the harness's default.
	Grace time.Duration `yaml:"grace,omitempty"`
	// Timeout is how long a step waits when the step sets no timeoutMs and
	// the run no -timeout; 0: the harness's default.
	Timeout time.Duration `yaml:"timeout,omitempty"`
}

// CorpusReady is the agent's sign that a new session is ready.
type CorpusReady struct {
	// Update is a session/update kind (sessionUpdate) the agent sends for
	// a new session, e.g. available_commands_update on a timer; "": none.
	Update string `yaml:"update,omitempty"`
}

// CorpusProbe is what `acpsnap probe` is told about the agent.
type CorpusProbe struct {
	// ExpectHosts are host names the agent looks up, or IPv4 addresses it
	// connects to, that no setting stops: probe reports them as
	// acknowledged instead of failing on them (offline they are still
	// refused). nil: none.
	ExpectHosts []string `yaml:"expectHosts,omitempty"`
}

// CorpusModel says how the agent talks to its model.
type CorpusModel struct {
	// Dialect is DialectNative ("") or the HTTP dialect the agent speaks.
	Dialect string `yaml:"dialect,omitempty"`
	// Upstream names the variables with the live model's base URL and key,
	// read in record mode only; defaults by dialect (the dialect table's
	// URLEnv and KeyEnv).
	Upstream struct {
		URLEnv string `yaml:"urlEnv,omitempty"`
		KeyEnv string `yaml:"keyEnv,omitempty"`
	} `yaml:"upstream,omitempty"`
	// Ignore lists request parts that are not part of a request's identity:
	// JSON pointers into the body ("/prompt_cache_key") and "header:NAME".
	Ignore []string `yaml:"ignore,omitempty"`
	// MaxCalls caps the model calls of one scenario run, in every mode;
	// 0: 1,000 (proxy.DefaultMaxCalls).
	MaxCalls int `yaml:"maxCalls,omitempty"`
}

// checkMaxCalls refuses a negative cap, and one on a native agent, whose
// model calls acpsnap does not see.
func (m CorpusModel) checkMaxCalls(native bool) (string, string) {
	switch {
	case m.MaxCalls < 0:
		return "model.maxCalls", "maxCalls must not be negative"
	case m.MaxCalls != 0 && native:
		return "model.maxCalls", "maxCalls needs an HTTP dialect (a native agent calls its own model)"
	}
	return "", ""
}

// checkHosts refuses a blank, spaced or repeated host of the list at key.
func checkHosts(key string, hosts []string) (string, string) {
	for i, h := range hosts {
		switch {
		case h == "" || strings.ContainsAny(h, " \t/:"):
			return fmt.Sprintf("%s.%d", key, i), fmt.Sprintf("host %q: want a host name or an IP address (no port, no scheme)", h)
		case slices.Contains(hosts[:i], h):
			return fmt.Sprintf("%s.%d", key, i), fmt.Sprintf("host %q is listed twice", h)
		}
	}
	return "", ""
}

// ScrubRule replaces every match of Pattern (a Go regexp) with Replace
// (which may use $1 …).
type ScrubRule struct {
	Pattern string `yaml:"pattern"`
	Replace string `yaml:"replace"`

	re *regexp.Regexp
}

// Regexp is the compiled pattern (nil before LoadCorpus validated it).
func (r ScrubRule) Regexp() *regexp.Regexp { return r.re }

// Native reports whether the agent writes its own session log.
func (c *Corpus) Native() bool { return c.Model.Dialect == "" || c.Model.Dialect == DialectNative }

// LoadCorpus reads root/acpsnap.yml; without one it returns the default
// configuration (the reference agent, native). Errors read
// "scenario: path:line: what".
func LoadCorpus(root string) (*Corpus, error) {
	path := filepath.Join(root, CorpusFile)
	b, err := readFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Corpus{Version: 1}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("scenario: load corpus configuration: %w", err)
	}
	c, err := decodeCorpus(b, path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return c, nil
}

func decodeCorpus(b []byte, path string) (*Corpus, error) {
	var c Corpus
	root, err := decodeStrict(b, path, &c)
	if err != nil {
		return nil, err
	}
	if key, msg := c.validate(); msg != "" {
		return nil, fmt.Errorf("%s:%d: %s", path, nodeLine(root, key), msg)
	}
	c.Path = path
	return &c, nil
}

// decodeStrict decodes one YAML document into v with unknown keys refused
// and returns the node tree for positions.
func decodeStrict(b []byte, path string, v any) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:1: empty file", path)
		}
		return nil, yamlError(path, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: more than one YAML document", path)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(b, &root); err != nil {
		return nil, yamlError(path, err)
	}
	return &root, nil
}

// validate returns the offending key path ("model.dialect", "scrub.1") and
// a message, or "", "".
func (c *Corpus) validate() (key, msg string) {
	switch {
	case c.Version != 1:
		return "version", fmt.Sprintf("version is %d, want 1", c.Version)
	case c.Agent.Shutdown != "" && c.Agent.Shutdown != ShutdownEOF && c.Agent.Shutdown != ShutdownTerm:
		return "agent.shutdown", fmt.Sprintf("shutdown is %q, want eof or term", c.Agent.Shutdown)
	case c.Agent.Home != "" && (filepath.IsAbs(c.Agent.Home) || !filepath.IsLocal(c.Agent.Home)):
		return "agent.home", fmt.Sprintf("home %q must be a folder inside the corpus", c.Agent.Home)
	case c.Settle < 0:
		return "settle", "settle must not be negative"
	case c.Agent.Grace < 0:
		return "agent.grace", "grace must not be negative"
	case c.Agent.Timeout < 0:
		return "agent.timeout", "timeout must not be negative"
	}
	if _, err := dialect.Lookup(c.Model.Dialect); err != nil && !c.Native() {
		return "model.dialect", fmt.Sprintf("dialect is %q, want %s", c.Model.Dialect, dialect.List([]string{DialectNative}))
	}
	if c.Native() && (len(c.Model.Ignore) > 0 || c.Model.Upstream.URLEnv != "" || c.Model.Upstream.KeyEnv != "") {
		return "model", "upstream and ignore need an HTTP dialect (a native agent talks to its own model)"
	}
	if key, msg := c.Model.checkMaxCalls(c.Native()); msg != "" {
		return key, msg
	}
	for i, ig := range c.Model.Ignore {
		if !strings.HasPrefix(ig, "/") && !strings.HasPrefix(ig, "header:") {
			return fmt.Sprintf("model.ignore.%d", i), fmt.Sprintf("ignore %q: want a JSON pointer (/a/b) or header:NAME", ig)
		}
	}
	if msg := checkAgentEnv(c.Agent.Env); msg != "" {
		return "agent.env", msg
	}
	if key, msg := compileScrub("scrub", c.Scrub); msg != "" {
		return key, msg
	}
	if key, msg := checkHosts("probe.expectHosts", c.Probe.ExpectHosts); msg != "" {
		return key, msg
	}
	if key, msg := checkAcknowledged("conformance.acknowledge", c.Conformance.Acknowledge); msg != "" {
		return key, msg
	}
	return checkFloating("floating", c.Floating)
}

func compileScrub(key string, rules []ScrubRule) (string, string) {
	for i := range rules {
		re, err := regexp.Compile(rules[i].Pattern)
		switch {
		case rules[i].Pattern == "":
			return fmt.Sprintf("%s.%d", key, i), "scrub: pattern is required"
		case err != nil:
			return fmt.Sprintf("%s.%d", key, i), fmt.Sprintf("scrub: pattern: %v", err)
		}
		rules[i].re = re
	}
	return "", ""
}

func checkFloating(key string, kinds []string) (string, string) {
	seen := map[string]bool{}
	for i, k := range kinds {
		if k == "" || seen[k] {
			return fmt.Sprintf("%s.%d", key, i), fmt.Sprintf("floating: %q is empty or listed twice", k)
		}
		seen[k] = true
	}
	return "", ""
}

// nodeLine is the line of the value at a dotted key path ("model.dialect",
// "scrub.1") in the document, or of its nearest existing ancestor, else 1.
func nodeLine(root *yaml.Node, path string) int {
	if root == nil || root.Kind != yaml.DocumentNode || len(root.Content) != 1 {
		return 1
	}
	n, line := root.Content[0], 1
	for _, part := range strings.Split(path, ".") {
		next := child(n, part)
		if next == nil {
			return line
		}
		n, line = next, next.Line
	}
	return line
}

func child(n *yaml.Node, part string) *yaml.Node {
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == part {
				return n.Content[i+1]
			}
		}
	case yaml.SequenceNode:
		var i int
		if _, err := fmt.Sscanf(part, "%d", &i); err == nil && i >= 0 && i < len(n.Content) {
			return n.Content[i]
		}
	}
	return nil
}

// NewScrubRule is a rule from a compiled pattern (for callers that build
// rules in code).
func NewScrubRule(re *regexp.Regexp, replace string) ScrubRule {
	return ScrubRule{Pattern: re.String(), Replace: replace, re: re}
}

// checkAgentEnv checks agent.env: like env, except that a credential-like
// name may hold the proxy's placeholder key ({{model.key}}), which is no
// secret, and PATH may be set when it keeps the harness's PATH ({{path}}),
// e.g. "{{home}}/bin:{{path}}" to put a seeded command first.
func checkAgentEnv(env map[string]string) string {
	for name, v := range env {
		msg := checkEnvName(name)
		switch {
		case msg == "":
		case secrets.LooksSecret(name) && !owned(name) && strings.Contains(v, "{{model.key}}"):
		case name == "PATH" && strings.Contains(v, "{{path}}"):
		default:
			return "agent." + msg
		}
	}
	return ""
}

// CorpusConformance is what a corpus says about the protocol's rules
// (docs/format.md, "Conformance").
type CorpusConformance struct {
	// Acknowledge lists the rules the agent is known to break, each with
	// why: a run does not fail on them, and acpsnap verify lists them.
	// nil: every rule holds.
	Acknowledge []Acknowledgement `yaml:"acknowledge,omitempty"`
}

// Acknowledgement is one rule of internal/conformance (its id) the agent
// is known to break, and why.
type Acknowledgement struct {
	Rule   string `yaml:"rule"`
	Reason string `yaml:"reason"`
}

// Acknowledged reports whether the corpus acknowledges the rule with id.
func (c *Corpus) Acknowledged(id string) bool {
	return c != nil && slices.ContainsFunc(c.Conformance.Acknowledge, func(a Acknowledgement) bool { return a.Rule == id })
}

// checkAcknowledged refuses an unknown or repeated rule, or one without a
// reason.
func checkAcknowledged(key string, acks []Acknowledgement) (string, string) {
	for i, a := range acks {
		switch {
		case conformance.Lookup(a.Rule) == nil:
			return fmt.Sprintf("%s.%d", key, i), fmt.Sprintf("rule %q: want one of %s", a.Rule, strings.Join(conformance.IDs(), ", "))
		case strings.TrimSpace(a.Reason) == "":
			return fmt.Sprintf("%s.%d", key, i), fmt.Sprintf("rule %s: a reason is required (why the agent breaks it)", a.Rule)
		case slices.ContainsFunc(acks[:i], func(b Acknowledgement) bool { return b.Rule == a.Rule }):
			return fmt.Sprintf("%s.%d", key, i), fmt.Sprintf("rule %s is acknowledged twice", a.Rule)
		}
	}
	return "", ""
}
