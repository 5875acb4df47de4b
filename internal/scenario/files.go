package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// The fixed file names of a scenario folder (docs/format.md); child logs
// are named by ChildFile.
const (
	ManifestFile = "snapshot.yml"
	InputFile    = "input.json"
	StdoutFile   = "stdout.expected.jsonl"
	SessionFile  = "session.jsonl"
	OverrideFile = "replay.override.json"
	ModelFile    = "model.json" // the authored model, iff recording: authored
	WorkspaceDir = "workspace"

	// The cassettes (docs/cassettes.md): present exactly when the manifest
	// selects tools (tools.include) or asks for a subagent cassette
	// (subagents.cassette).
	ToolCassetteFile     = "tools.cassette.jsonl"
	SubagentCassetteFile = "subagents.cassette.jsonl"

	// ExpectedDir is the optional expected workspace: the cwd after the run.
	ExpectedDir = "workspace.expected"
	// PendingSuffix ends a fixture's pending version (`-pending`): a file
	// or folder written beside the fixture for review, never committed.
	PendingSuffix = ".new"
)

// PinsDir is the pins folder of a corpus (docs/format.md, "Composed
// log"): the system prompts and tool schemas its logs name, each stored
// once, in a file named by its content.
const PinsDir = "pins"

// Recording values (Manifest.Recording).
const (
	RecordingLive     = "live"     // recorded against the live model by record
	RecordingAuthored = "authored" // rendered from model.json; never re-recorded
)

// Unrecorded reports whether the scenario folder dir was scaffolded but
// never recorded: it has neither stdout.expected.jsonl nor session.jsonl.
func Unrecorded(dir string) bool {
	return !exists(filepath.Join(dir, StdoutFile)) && !exists(filepath.Join(dir, SessionFile))
}

// ChildFile is the name of the n-th child (subagent) log, n ≥ 1.
func ChildFile(n int) string { return "session." + strconv.Itoa(n) + ".jsonl" }

// ChildIndex parses "session.<n>.jsonl" and reports n, or 0 when name is not
// a child log name (leading zeros are not a child log name).
func ChildIndex(name string) int {
	mid, ok := strings.CutPrefix(name, "session.")
	if !ok {
		return 0
	}
	mid, ok = strings.CutSuffix(mid, ".jsonl")
	if !ok || mid == "" || mid[0] == '0' {
		return 0
	}
	n, err := strconv.Atoi(mid)
	if err != nil || n < 1 || strconv.Itoa(n) != mid {
		return 0
	}
	return n
}

// ChildLogs lists the child logs of the scenario folder dir in order: the
// contiguous run session.1.jsonl, session.2.jsonl, … that exists.
func ChildLogs(dir string) []string {
	var out []string
	for n := 1; ; n++ {
		p := filepath.Join(dir, ChildFile(n))
		if _, err := os.Stat(p); err != nil {
			return out
		}
		out = append(out, p)
	}
}

// LogName is the fixture file name of the i-th log of a scenario: the
// primary session.jsonl for 0, then the child logs.
func LogName(i int) string {
	if i == 0 {
		return SessionFile
	}
	return ChildFile(i)
}

// Names lists the scenario folders under root, sorted, with root's own
// acpsnap.yml (a broken one names no home): Corpus.Names.
func Names(root string) ([]string, error) {
	c, err := LoadCorpus(root)
	if err != nil {
		c = nil
	}
	return c.Names(root)
}

// Names lists the scenario folders under root, the corpus c configures,
// sorted. Hidden folders are not scenarios, nor are the corpus's own: its
// pins and the agent's home seed (agent.home). c nil: a corpus without
// agent.home.
func (c *Corpus) Names(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("scenario: list %s: %w", root, err)
	}
	own := map[string]bool{PinsDir: true}
	if c != nil && c.Agent.Home != "" {
		own[strings.SplitN(filepath.ToSlash(filepath.Clean(c.Agent.Home)), "/", 2)[0]] = true
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && !own[e.Name()] {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
