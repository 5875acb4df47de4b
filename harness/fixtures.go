package harness

import (
	"os"
	"path/filepath"
	"strconv"
)

// Fixture files of a scenario folder that the harness hands to the agent
// (SPEC §2): the primary log, the child logs (ChildFile) and the override.
const (
	SessionFile  = "session.jsonl"
	OverrideFile = "replay.override.json"
)

// ChildFile is the name of the n-th child (subagent) log, n ≥ 1.
func ChildFile(n int) string { return "session." + strconv.Itoa(n) + ".jsonl" }

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
