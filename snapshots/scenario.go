package snapshots

import (
	"fmt"
	"hash/fnv"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/harness"
)

// Fixed file names of a scenario folder (SPEC §2); those the harness reads
// are its names, and child logs are named by harness.ChildFile.
const (
	ManifestFile = harness.ManifestFile
	InputFile    = harness.InputFile
	StdoutFile   = "stdout.expected.jsonl"
	SessionFile  = harness.SessionFile
	OverrideFile = harness.OverrideFile
	WorkspaceDir = "workspace"
)

// childIndex parses "session.<n>.jsonl" and reports n, or 0 when name is not
// a child log name (leading zeros are not a child log name).
func childIndex(name string) int {
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

// Names lists the scenario folders under root, sorted.
func Names(root string) ([]string, error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("snapshots: list %s: %w", root, err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() && !strings.HasPrefix(e.Name(), ".") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// Selection picks scenarios by name: a regular expression and a stable shard.
// The zero value selects everything.
type Selection struct {
	// Run filters by name; nil: all.
	Run *regexp.Regexp
	// Shard K of Shards (1-based); Shards 0: no sharding. A scenario's shard
	// depends only on its own name (FNV-1a), so adding scenarios never moves
	// the others between CI machines.
	Shard, Shards int
}

// ParseShard parses "K/N" with 1 ≤ K ≤ N.
func ParseShard(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("invalid shard %q: want K/N with 1 <= K <= N", s)
	}
	return k, n, nil
}

// Match reports whether the selection includes name.
func (s Selection) Match(name string) bool {
	if s.Run != nil && !s.Run.MatchString(name) {
		return false
	}
	if s.Shards > 1 {
		h := fnv.New32a()
		h.Write([]byte(name))
		return int(h.Sum32()%uint32(s.Shards)) == s.Shard-1
	}
	return true
}
