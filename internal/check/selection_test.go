package check

import (
	"fmt"
	"regexp"
	"testing"
)

func TestParseShard(t *testing.T) {
	type testCase struct {
		in   string
		k, n int
		ok   bool
	}
	for _, tc := range []testCase{
		{"1/1", 1, 1, true}, {"2/4", 2, 4, true}, {"0/2", 0, 0, false}, {"3/2", 0, 0, false},
		{"1", 0, 0, false}, {"a/b", 0, 0, false}, {"1/0", 0, 0, false},
	} {
		k, n, err := ParseShard(tc.in)
		if (err == nil) != tc.ok || k != tc.k || n != tc.n {
			t.Errorf("ParseShard(%q) = %d, %d, %v", tc.in, k, n, err)
		}
	}
}

// TestShardPartition: every name falls in exactly one shard, and a name's
// shard does not depend on the other names.
func TestShardPartition(t *testing.T) {
	const shards = 4
	counts := make([]int, shards)
	for i := range 400 {
		name := fmt.Sprintf("scenario-%d", i)
		in := 0
		for k := 1; k <= shards; k++ {
			if (Selection{Shard: k, Shards: shards}).Match(name) {
				in++
				counts[k-1]++
			}
		}
		if in != 1 {
			t.Fatalf("%s is in %d shards", name, in)
		}
	}
	for k, c := range counts {
		if c < 50 {
			t.Errorf("shard %d/%d holds only %d of 400 names: the split is lopsided", k+1, shards, c)
		}
	}
	sel := Selection{Run: regexp.MustCompile("^tool-"), Shard: 1, Shards: 1}
	if !sel.Match("tool-bash") || sel.Match("text-turn") {
		t.Error("-run and a single shard combine wrongly")
	}
}
