package acpsnaptest

import (
	"fmt"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/frontend"
)

// ShardEnv selects a stable shard of every corpus, K/N (1 ≤ K ≤ N), the
// same partition as acpsnap run -shard K/N.
const ShardEnv = "ACPSNAP_SHARD"

// shard is the shard a run checks: k of n (1-based), n 0 for all; bazel
// is Bazel's test protocol, whose status file is touched to say sharding
// is honoured.
type shard struct {
	k, n  int
	bazel frontend.Bazel
}

// readShard reads ACPSNAP_SHARD, else Bazel's test-sharding protocol (b:
// TEST_TOTAL_SHARDS, TEST_SHARD_INDEX from 0, TEST_SHARD_STATUS_FILE).
func readShard(getenv func(string) string, b frontend.Bazel) (shard, error) {
	if v := getenv(ShardEnv); v != "" {
		k, n, err := check.ParseShard(v)
		if err != nil {
			return shard{}, fmt.Errorf("acpsnaptest: %s: %w", ShardEnv, err)
		}
		return shard{k: k, n: n}, nil
	}
	return shard{k: b.Shard, n: b.Shards, bazel: b}, nil
}

// selection is the check selection of s (everything when unsharded).
func (s shard) selection() check.Selection {
	return check.Selection{Shard: s.k, Shards: s.n}
}

// honour touches Bazel's shard status file, which tells Bazel the test
// runner shards (else Bazel warns that it does not).
func (s shard) honour() error {
	if err := s.bazel.Touch(); err != nil {
		return fmt.Errorf("acpsnaptest: %w", err)
	}
	return nil
}
