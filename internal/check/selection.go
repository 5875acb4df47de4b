package check

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"strconv"
	"strings"
)

// Selection picks scenarios by name: a regular expression and a stable shard.
// The zero value selects everything.
type Selection struct {
	// Run filters by name; nil: all.
	Run *regexp.Regexp
	// Skip leaves out the names it matches (as go test -skip); nil: none.
	Skip *regexp.Regexp
	// Shard K of Shards (1-based); Shards 0: no sharding. A scenario's shard
	// depends only on its own name (FNV-1a), so adding scenarios never moves
	// the others between CI machines.
	Shard, Shards int
	// Only, when not nil, keeps only the names it holds (a record plan's).
	Only map[string]bool
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
	if s.Run != nil && !s.Run.MatchString(name) || s.Skip != nil && s.Skip.MatchString(name) || s.Only != nil && !s.Only[name] {
		return false
	}
	if s.Shards > 1 {
		h := fnv.New32a()
		h.Write([]byte(name))
		return int(h.Sum32()%uint32(s.Shards)) == s.Shard-1
	}
	return true
}
