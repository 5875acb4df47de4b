// Package layout holds the test that keeps the folder tree the
// architecture: import arrows point down the list below, the reference
// agent and the test agents are clients of the library and never imported
// by it, and drawn by folder the import graph has no cycle (no folder is
// both a base some folder below imports and a roof that imports one
// above). A folder is a top-level one, or one directly under internal/.
package layout

import (
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const module = "github.com/acpsnap/acpsnap"

// layers lists the packages from top to bottom: a package may import only
// packages of a later layer (or of its own layer's subtree, for the codecs
// and cassettes that share a parent). The public packages sit among the
// internal ones, each where its imports put it. CONTRIBUTING.md's "Layout"
// draws the same list, with the clients below placed between the corpora
// and the checker.
var layers = []string{
	"cmd/acpsnap", // and its code, cmd/acpsnap/internal/cli
	"acpsnaptest",
	"snapshots",
	"examples",
	"internal/frontend", // what both front ends decide the same way
	"internal/report",   // JUnit, the HTML report, show, hints
	"internal/check",
	"internal/probe",
	"internal/harness",
	"internal/harness/script",
	"internal/harness/client",
	"internal/harness/relay",
	"internal/harness/harvest",
	"internal/harness/proc",
	"llmreplay", // public: the player a native agent replays its model with
	"internal/replay",
	"internal/proxy",
	"internal/httplog",  // the composed log of an HTTP agent, which the proxy records into
	"internal/scenario", // the format only: what checks or replays it sits above
	"internal/mcpproxy",
	"cassette", // public: the tool and subagent cassettes
	"internal/cassette",
	"internal/normalize",
	"sessionlog",    // public
	"internal/wire", // the codecs and the dialect table, which the composed session log asks
	"model",         // public
	"agentenv",      // public
	"internal",      // the leaves
}

// clients are packages outside the library: they may import any library
// package, and no library package imports them.
var clients = []string{"agent", "testagents"}

// imports lists the module's packages (relative to the module) and the
// module packages each imports, tests left out: go list ./... .
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		from := strings.TrimPrefix(fields[0], module+"/")
		graph[from] = nil
		for _, imp := range fields[1:] {
			if to, ok := strings.CutPrefix(imp, module+"/"); ok {
				graph[from] = append(graph[from], to)
			}
		}
	}
	return graph
}

func TestImportsPointDown(t *testing.T) {
	graph := imports(t)
	for _, from := range slices.Sorted(maps.Keys(graph)) {
		for _, to := range graph[from] {
			if msg := check(from, to); msg != "" {
				t.Errorf("%s imports %s: %s", from, to, msg)
			}
		}
	}
}

// TestFoldersPointDown draws the import graph by folder (folder): no
// folder may hold both a package that a folder below it imports and one
// that imports a folder above it, so a folder is one place in the list.
func TestFoldersPointDown(t *testing.T) {
	for _, msg := range folderCycles(imports(t)) {
		t.Error(msg)
	}
}

// folder is the top-level folder of a package; under internal/, the
// folder below it (internal/check, internal/harness), since internal/
// holds packages of every layer.
func folder(pkg string) string {
	f, rest, _ := strings.Cut(pkg, "/")
	if f == "internal" && rest != "" {
		sub, _, _ := strings.Cut(rest, "/")
		return f + "/" + sub
	}
	return f
}

// folderCycles returns, for each folder that reaches itself
// through another folder's imports, the shortest such cycle, each step
// named by one package import that makes it.
func folderCycles(graph map[string][]string) []string {
	type step struct{ from, to string } // one package import behind a folder edge
	edges := map[string]map[string]step{}
	for _, from := range slices.Sorted(maps.Keys(graph)) {
		for _, to := range graph[from] {
			ff, ft := folder(from), folder(to)
			if ff == ft {
				continue
			}
			if edges[ff] == nil {
				edges[ff] = map[string]step{}
			}
			if _, ok := edges[ff][ft]; !ok {
				edges[ff][ft] = step{from, to}
			}
		}
	}
	var msgs []string
	for _, start := range slices.Sorted(maps.Keys(edges)) {
		// Breadth first from start; prev records how each folder was reached.
		prev := map[string]string{}
		queue := []string{start}
		for len(queue) > 0 && prev[start] == "" {
			f := queue[0]
			queue = queue[1:]
			for _, next := range slices.Sorted(maps.Keys(edges[f])) {
				if _, seen := prev[next]; !seen {
					prev[next] = f
					queue = append(queue, next)
				}
			}
		}
		if prev[start] == "" {
			continue
		}
		var path []string
		for to := start; ; {
			from := prev[to]
			s := edges[from][to]
			path = append(path, s.from+" imports "+s.to)
			if to = from; to == start {
				break
			}
		}
		slices.Reverse(path)
		msgs = append(msgs, fmt.Sprintf("folder %s/ is both a base and a roof: %s", start, strings.Join(path, ", ")))
	}
	return msgs
}

func check(from, to string) string {
	switch {
	case isClient(to):
		if isClient(from) || above(from, "internal/check") {
			return ""
		}
		return "the library never imports the reference agent"
	case isClient(from):
		return ""
	}
	lf, lt := layer(from), layer(to)
	switch {
	case lf < 0 || lt < 0:
		return "not in the layer list of internal/layout"
	case lf == lt:
		return "" // within one layer: cassette/tool uses cassette, internal/* each other
	case lt <= lf:
		return "an upward import (see the layer list in internal/layout)"
	}
	return ""
}

// above reports whether pkg is in a layer above the layer of ref: the
// command, the test entry point and the corpora, which may use the
// reference agent.
func above(pkg, ref string) bool { return layer(pkg) >= 0 && layer(pkg) < layer(ref) }

func layer(pkg string) int {
	best, bestLen := -1, -1
	for i, l := range layers {
		if under(pkg, l) && len(l) > bestLen {
			best, bestLen = i, len(l)
		}
	}
	return best
}

func isClient(pkg string) bool {
	for _, c := range clients {
		if under(pkg, c) {
			return true
		}
	}
	return false
}

// under reports whether pkg is dir or inside it.
func under(pkg, dir string) bool { return pkg == dir || strings.HasPrefix(pkg, dir+"/") }

func TestCheckCatchesUpwardImports(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		bad      bool
	}{
		{"internal/harness", "internal/scenario", false},
		{"internal/scenario", "internal/harness", true},
		{"model", "llmreplay", true},
		{"llmreplay", "agent", true},
		{"llmreplay", "internal/replay", false},
		{"sessionlog", "internal/normalize", true},
		{"internal/strictjson", "sessionlog", true},
		{"snapshots", "agent/launch", false},
		{"internal/check", "cmd/acpsnap/internal/cli", true},
		{"internal/harness", "testagents/fakeagent", true},
		{"testagents/conformance", "internal/check", false},
		{"internal/harness", "internal/harness/proc", false},
		{"internal/harness/client", "internal/harness/proc", false},
		{"internal/harness/proc", "internal/harness/client", true},
		{"internal/harness/harvest", "internal/harness", true},
		{"agent", "llmreplay", false},
		{"internal/wire/openaichat", "model", false},
		{"internal/wire/anthropic", "llmreplay", true},
	} {
		if got := check(tc.from, tc.to) != ""; got != tc.bad {
			t.Errorf("check(%s → %s) refuses = %v, want %v", tc.from, tc.to, got, tc.bad)
		}
	}
}

func TestFolderCyclesCatchesABaseThatIsARoof(t *testing.T) {
	for _, tc := range []struct {
		name  string
		graph map[string][]string
		want  []string
	}{
		{"down only", map[string][]string{
			"cmd/acpsnap/internal/cli": {"internal/check", "internal/strictjson"},
			"internal/check":           {"internal/strictjson", "internal/scenario", "sessionlog"},
			"internal/scenario":        {"internal/strictjson"},
			"sessionlog":               {"internal/strictjson"},
		}, nil},
		{"a public folder at the top and the bottom", map[string][]string{
			"cassette/tool":      {"internal/normalize"},
			"internal/normalize": {"sessionlog"},
			"sessionlog":         {"cassette"},
		}, []string{
			"folder cassette/ is both a base and a roof: cassette/tool imports internal/normalize, internal/normalize imports sessionlog, sessionlog imports cassette",
			"folder internal/normalize/ is both a base and a roof: internal/normalize imports sessionlog, sessionlog imports cassette, cassette/tool imports internal/normalize",
			"folder sessionlog/ is both a base and a roof: sessionlog imports cassette, cassette/tool imports internal/normalize, internal/normalize imports sessionlog",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, folderCycles(tc.graph)); diff != "" {
				t.Errorf("folderCycles (-want +got):\n%s", diff)
			}
		})
	}
}
