package check

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/acpsnap/acpsnap/internal/cassette"
	"github.com/acpsnap/acpsnap/internal/cassette/subagent"
	"github.com/acpsnap/acpsnap/internal/cassette/tool"
	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/textdiff"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// Violation is one guard failure, with the path it concerns.
type Violation struct {
	Path string
	Msg  string
}

// String is "path: msg", or msg alone when it already starts with the path
// or a file inside it (parse errors carry "path:line:"), made visible: a
// path names folders and files a pull request chose.
func (v Violation) String() string {
	if strings.HasPrefix(v.Msg, v.Path+":") || strings.HasPrefix(v.Msg, v.Path+"/") {
		return console.Text(v.Msg)
	}
	return console.Text(v.Path + ": " + v.Msg)
}

// VerifyConfig tunes Verify. The zero value checks everything.
type VerifyConfig struct {
	// Unrecorded, when it returns true for a scenario name, lets that scenario
	// lack its recorded files (stdout.expected.jsonl, session.jsonl): record
	// mode creates them for a scenario that `new` scaffolded.
	Unrecorded func(name string) bool
	// Rewritten, when it returns true for a scenario name, lets that
	// scenario's fixtures be out of normal form: a writing mode is about to
	// rewrite them in normal form.
	Rewritten func(name string) bool
	// Drafts lets a scenario keep the scaffold's "TODO: …" reason, which
	// otherwise is a violation: a run of one scenario need not wait for
	// another one's reason (acpsnap verify and the go test guards refuse it).
	Drafts bool
	// Pending lets pending files (<file>.new) stand: a -pending run is
	// about to replace them. false: each one is a violation.
	Pending bool
	// DiffColor renders the fixed-point diffs with ANSI colour; the caller
	// decides (a terminal, NO_COLOR unset).
	DiffColor bool
	// Folders are the corpus as read already (ReadFolders); nil: Verify
	// reads it.
	Folders *Folders
	// Only, when set, limits the guards to the scenarios it returns true
	// for, and to their folders (a filtered test checks its own). nil:
	// every scenario, and the corpus root's links and pins folder.
	Only func(name string) bool
	// Unreferenced reports the pin files no scenario names (acpsnap
	// verify; `acpsnap pins prune` removes them). A run's guards leave
	// them: a record that changed a prompt leaves the old pin behind, and
	// it changes no verdict. Only without Only.
	Unreferenced bool
}

// Verify runs the guards (docs/format.md, "Guards") over the corpus at root without running
// any agent and returns every violation (not only the first), sorted by path.
func Verify(root string, cfg VerifyConfig) []Violation {
	f := cfg.Folders
	if f == nil || filepath.Clean(f.Root) != filepath.Clean(root) {
		var fe *folderError
		if f, fe = readFolders(root, cfg.Only); fe != nil {
			return []Violation{fe.v}
		}
	}
	names, pins, native := f.Names, f.Pins, f.Corpus.Native()
	var out []Violation
	if cfg.Only == nil {
		out = append(linkedFolders(root), pinFolder(root, cfg.Unreferenced)...)
	}
	for _, name := range names {
		if cfg.Only != nil && !cfg.Only(name) {
			continue
		}
		unrecorded := cfg.Unrecorded != nil && cfg.Unrecorded(name)
		rewritten := cfg.Rewritten != nil && cfg.Rewritten(name)
		s := f.load(filepath.Join(root, name))
		composed := pins
		if native {
			composed = nil
			out = append(out, missingPins(s, pins)...)
		}
		out = append(out, verifyScenario(s, unrecorded, rewritten, composed, cfg)...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// linkedFolders reports every symbolic link at the corpus root: a linked
// scenario folder is never run (nor counted), so it must not pass unseen.
func linkedFolders(root string) []Violation {
	entries, _ := os.ReadDir(root)
	var vs []Violation
	for _, e := range entries {
		p := filepath.Join(root, e.Name())
		if info, err := safefile.Info(p, e); err == nil && info.Mode()&os.ModeSymlink != 0 { // a Bazel runfile is the file it mirrors
			vs = append(vs, Violation{p, "symbolic link: a scenario must be a real folder under the corpus (a linked one is never run)"})
		}
	}
	return vs
}

// verifyScenario checks one folder; see Verify.
// pins nil: a native corpus; else its composed logs decompose with them.
func verifyScenario(s *scenario.Scenario, unrecorded, rewritten bool, pins *httplog.Pins, cfg VerifyConfig) []Violation {
	dir := s.Dir
	var vs []Violation
	add := func(path, format string, args ...any) {
		vs = append(vs, Violation{path, fmt.Sprintf(format, args...)})
	}
	mpath := filepath.Join(dir, scenario.ManifestFile)
	if _, err := os.Stat(mpath); err != nil {
		add(dir, "orphan folder: no %s (every folder under the corpus must be a scenario)", scenario.ManifestFile)
		return vs
	}
	m := s.Manifest
	if s.ManifestErr != nil {
		add(mpath, "%v", s.ManifestErr)
	} else if !cfg.Drafts && strings.HasPrefix(strings.TrimSpace(m.Reason), "TODO") {
		add(mpath, "reason is still the scaffold's %q: say in one line what this scenario proves", m.Reason)
	}
	vs = append(vs, checkFiles(s, unrecorded, cfg.Pending)...)
	vs = append(vs, checkExpected(dir)...)
	if s.InputErr != nil && exists(filepath.Join(dir, scenario.InputFile)) {
		add(filepath.Join(dir, scenario.InputFile), "%v", s.InputErr)
	}
	if !exists(filepath.Join(dir, scenario.SessionFile)) || !exists(filepath.Join(dir, scenario.StdoutFile)) {
		return vs
	}
	return append(vs, checkLogs(s, rewritten, pins, textdiff.Config{Color: cfg.DiffColor})...)
}

// checkFiles reports missing required files, stray files, a wrong override
// presence, non-contiguous child logs and child logs beside a subagent
// cassette.
func checkFiles(s *scenario.Scenario, unrecorded, pending bool) []Violation {
	dir, m := s.Dir, s.Manifest
	var vs []Violation
	required := []string{scenario.ManifestFile, scenario.InputFile}
	if !unrecorded {
		required = append(required, scenario.StdoutFile, scenario.SessionFile)
	}
	for _, f := range required {
		if !exists(filepath.Join(dir, f)) {
			vs = append(vs, Violation{filepath.Join(dir, f), "required file is missing"})
		}
	}
	entries, _ := os.ReadDir(dir)
	var children []int
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch name := e.Name(); {
		case (name == scenario.WorkspaceDir || name == scenario.ExpectedDir) && e.IsDir():
		case safefile.IsLeftover(name):
			// A killed write's: not a fixture, and the next write of the
			// scenario removes it (docs/format.md, "Guards").
		case scenario.IsPending(name):
			if !pending {
				vs = append(vs, Violation{p, "pending file: review it with 'acpsnap review', or 'acpsnap accept'/'acpsnap reject' (never commit it)"})
			}
		case !e.IsDir() && (name == scenario.ManifestFile || name == scenario.InputFile || name == scenario.StdoutFile || name == scenario.SessionFile || name == scenario.OverrideFile):
		case !e.IsDir() && (name == scenario.ToolCassetteFile || name == scenario.SubagentCassetteFile):
		case !e.IsDir() && name == scenario.ModelFile:
			vs = append(vs, checkModel(dir, m)...)
		case !e.IsDir() && isMCPCassette(name):
		case !e.IsDir() && scenario.ChildIndex(name) > 0:
			children = append(children, scenario.ChildIndex(name))
		default:
			vs = append(vs, Violation{p, "stray file: not part of a scenario (see docs/format.md)"})
		}
	}
	sort.Ints(children)
	if m != nil && m.Subagents != nil && len(children) > 0 {
		vs = append(vs, Violation{filepath.Join(dir, scenario.ChildFile(children[0])), fmt.Sprintf("child log with subagents.cassette in snapshot.yml: %s replays the children, so the scenario has no child logs (remove them, or re-record)", scenario.SubagentCassetteFile)})
	}
	for i, n := range children {
		if n != i+1 {
			vs = append(vs, Violation{filepath.Join(dir, scenario.ChildFile(n)), fmt.Sprintf("child logs must be contiguous from 1: found %s without %s", scenario.ChildFile(n), scenario.ChildFile(i+1))})
			break
		}
	}
	vs = append(vs, checkCassettes(dir, m, unrecorded)...)
	vs = append(vs, checkMCPCassettes(s, unrecorded)...)
	hasOverride := exists(filepath.Join(dir, scenario.OverrideFile))
	if m != nil && m.Replay.Override != hasOverride {
		vs = append(vs, Violation{filepath.Join(dir, scenario.OverrideFile), fmt.Sprintf("present=%v but snapshot.yml says replay.override: %v", hasOverride, m.Replay.Override)})
	}
	return vs
}

// checkModel accepts model.json in an authored scenario, when it loads.
func checkModel(dir string, m *scenario.Manifest) []Violation {
	p := filepath.Join(dir, scenario.ModelFile)
	if m != nil && m.Recording != scenario.RecordingAuthored {
		return []Violation{{p, fmt.Sprintf("only an authored scenario keeps its model (snapshot.yml says recording: %s; a live one is re-recorded against the live model)", m.Recording)}}
	}
	if _, err := LoadModel(dir); err != nil {
		return []Violation{{p, err.Error()}}
	}
	return nil
}

// checkLogs parses every committed log, checks that the fixture is a fixed
// point of normalization and that its replay script loads.
func checkLogs(s *scenario.Scenario, rewritten bool, pins *httplog.Pins, dc textdiff.Config) []Violation {
	dir, f := s.Dir, s.Fixture
	if s.FixtureErr != nil {
		return []Violation{{dir, s.FixtureErr.Error()}}
	}
	var vs []Violation
	for i, raw := range f.Logs {
		if _, err := sessionlog.Read(bytes.NewReader(raw), f.LogPaths[i]); err != nil {
			vs = append(vs, Violation{f.LogPaths[i], err.Error()})
		}
	}
	if len(vs) > 0 {
		return vs
	}
	vs = checkPlaceholders(f.LogPaths, f.Logs)
	norm, err := NormalizeFixture(f)
	if err != nil {
		return append(vs, Violation{dir, err.Error()})
	}
	name := filepath.Base(dir)
	for i, raw := range f.Logs {
		if !rewritten && !bytes.Equal(raw, norm.Logs[i]) {
			vs = append(vs, Violation{f.LogPaths[i], fmt.Sprintf("not a fixed point of normalization (rewrite it normalized with: acpsnap refresh -run '^%s$'):\n%s", name, textdiff.JSONFiles(f.LogPaths[i], "normalized", raw, norm.Logs[i], dc))})
		}
	}
	if !rewritten && !bytes.Equal(f.Stdout, norm.Stdout) {
		vs = append(vs, Violation{f.StdoutPath, fmt.Sprintf("not a fixed point of normalization (rewrite it normalized with: acpsnap update -run '^%s$'):\n%s", name, textdiff.JSONFiles(f.StdoutPath, "normalized", f.Stdout, norm.Stdout, dc))})
	}
	if pins != nil {
		if _, _, err := httplog.Decompose(f.Logs[0], f.LogPaths[0], pins); err != nil {
			vs = append(vs, Violation{f.LogPaths[0], "composed log: " + err.Error()})
		}
		return vs
	}
	cfg := replay.Config{Primary: f.LogPaths[0], Children: f.LogPaths[1:], Logs: f.Logs}
	if p := filepath.Join(dir, scenario.OverrideFile); exists(p) {
		cfg.Override = p
	}
	if _, err := replay.Load(cfg); err != nil {
		vs = append(vs, Violation{dir, "replay script: " + err.Error()})
	}
	return vs
}

// checkCassettes: a cassette is present exactly when the manifest asks for
// it (tools.include, subagents.cassette), and it verifies.
func checkCassettes(dir string, m *scenario.Manifest, unrecorded bool) []Violation {
	if m == nil {
		return nil
	}
	var vs []Violation
	for _, c := range []struct {
		file, key string
		want      bool
		kind      cassette.Kind
	}{
		{scenario.ToolCassetteFile, "tools.include", m.Tools != nil, tool.Kind()},
		{scenario.SubagentCassetteFile, "subagents.cassette", m.Subagents != nil, subagent.Kind()},
	} {
		p := filepath.Join(dir, c.file)
		switch has := exists(p); {
		case has && !c.want:
			vs = append(vs, Violation{p, fmt.Sprintf("present but snapshot.yml has no %s", c.key)})
		case !has && c.want && !unrecorded:
			vs = append(vs, Violation{p, fmt.Sprintf("required file is missing (snapshot.yml has %s; record the scenario)", c.key)})
		case has:
			if _, err := cassette.ReadFile(p, c.kind); err != nil {
				vs = append(vs, Violation{p, err.Error()})
			}
		}
	}
	return vs
}

// missingPins reports the logs of a native scenario that name a pin the
// corpus lacks (or whose file holds another value), or a pin of the old
// form.
func missingPins(s *scenario.Scenario, pins *httplog.Pins) []Violation {
	if s.Fixture == nil {
		return nil // its files are reported missing, or not recorded yet
	}
	var vs []Violation
	for i, b := range s.Fixture.Logs {
		p := s.Fixture.LogPaths[i]
		if old := httplog.LegacyRefs(b); len(old) > 0 {
			vs = append(vs, Violation{p, pins.LegacyError(old[0]).Error()})
		}
		for _, ph := range httplog.Refs(b) {
			if _, err := pins.Value(ph); err != nil {
				vs = append(vs, Violation{p, err.Error()})
			}
		}
	}
	return vs
}

func isMCPCassette(file string) bool {
	_, ok := scenario.MCPServerName(file)
	return ok
}

// checkMCPCassettes: an MCP server's cassette is present exactly when
// input.json declares the server, and it verifies. (An input.json that
// does not load is reported by its own guard.)
func checkMCPCassettes(s *scenario.Scenario, unrecorded bool) []Violation {
	dir, in := s.Dir, s.Input
	if s.InputErr != nil {
		return nil
	}
	declared := map[string]bool{}
	var vs []Violation
	for _, srv := range in.MCPServers() {
		declared[srv.Name] = true
		p := filepath.Join(dir, scenario.MCPCassetteFile(srv.Name))
		switch {
		case exists(p):
			if _, err := cassette.ReadFile(p, tool.Kind()); err != nil {
				vs = append(vs, Violation{p, err.Error()})
			}
		case !unrecorded:
			vs = append(vs, Violation{p, fmt.Sprintf("required file is missing (input.json declares the MCP server %q; record the scenario)", srv.Name)})
		}
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if name, ok := scenario.MCPServerName(e.Name()); ok && !declared[name] {
			vs = append(vs, Violation{filepath.Join(dir, e.Name()), fmt.Sprintf("present but input.json declares no MCP server %q", name)})
		}
	}
	return vs
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
