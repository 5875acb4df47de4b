// Package layout holds the test that keeps the folder tree the
// architecture: import arrows point down the list below, the reference
// agent is a client of the library and never imported by it, and only the
// command imports internal/cli.
package layout

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/acpsnap/acpsnap"

// layers lists the packages from top to bottom: a package may import only
// packages of a later layer (or of its own layer's subtree, for the codecs
// and cassettes that share a parent). The README's "Layout" draws the same
// list, with the clients below placed between the corpora and check.
var layers = []string{
	"cmd/acpsnap",
	"internal/cli",
	"acpsnaptest",
	"snapshots",
	"examples",
	"transcript",
	"check",
	"harness",
	"harness/internal/client",
	"harness/internal/relay",
	"harness/internal/harvest",
	"harness/internal/proc",
	"llmreplay",
	"llmreplay/proxy",
	"llmreplay/httplog", // the composed log of an HTTP agent, which the proxy records into
	"scenario",          // the format only: what checks or replays it sits above
	"cassette",
	"normalize",
	"sessionlog",
	"llmreplay/wire", // the codecs and the dialect table, which the composed session log asks
	"model",
	"agentenv",
	"internal",
}

// clients are packages outside the library: they may import any library
// package (never internal/cli), and no library package imports them.
var clients = []string{"agent", "internal/fakeagent", "internal/conformance"}

func TestImportsPointDown(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		from := strings.TrimPrefix(fields[0], module+"/")
		for _, imp := range fields[1:] {
			to, ok := strings.CutPrefix(imp, module+"/")
			if !ok {
				continue
			}
			if msg := check(from, to); msg != "" {
				t.Errorf("%s imports %s: %s", from, to, msg)
			}
		}
	}
}

func check(from, to string) string {
	switch {
	case to == "internal/cli" && from != "cmd/acpsnap":
		return "only cmd/acpsnap imports internal/cli"
	case isClient(to):
		if isClient(from) || above(from, "check") {
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
		{"harness", "scenario", false},
		{"scenario", "harness", true},
		{"model", "llmreplay", true},
		{"llmreplay", "agent", true},
		{"snapshots", "agent/launch", false},
		{"check", "internal/cli", true},
		{"harness", "harness/internal/proc", false},
		{"harness/internal/client", "harness/internal/proc", false},
		{"harness/internal/proc", "harness/internal/client", true},
		{"harness/internal/harvest", "harness", true},
		{"agent", "llmreplay", false},
		{"llmreplay/wire/openaichat", "model", false},
		{"llmreplay/wire/anthropic", "llmreplay", true},
	} {
		if got := check(tc.from, tc.to) != ""; got != tc.bad {
			t.Errorf("check(%s → %s) refuses = %v, want %v", tc.from, tc.to, got, tc.bad)
		}
	}
}
