package acpsnaptest

import (
	"fmt"
	"os"
	"strconv"

	"github.com/acpsnap/acpsnap/check"
)

// ShardEnv selects a stable shard of every corpus, K/N (1 ≤ K ≤ N), the
// same partition as acpsnap run -shard K/N.
const ShardEnv = "ACPSNAP_SHARD"

// shard is the shard a run checks: k of n (1-based), n 0 for all; status
// is Bazel's TEST_SHARD_STATUS_FILE, touched to say sharding is honoured.
type shard struct {
	k, n   int
	status string
}

// readShard reads ACPSNAP_SHARD, else Bazel's test-sharding protocol
// (TEST_TOTAL_SHARDS, TEST_SHARD_INDEX from 0, TEST_SHARD_STATUS_FILE).
func readShard(getenv func(string) string) (shard, error) {
	if v := getenv(ShardEnv); v != "" {
		k, n, err := check.ParseShard(v)
		if err != nil {
			return shard{}, fmt.Errorf("acpsnaptest: %s: %w", ShardEnv, err)
		}
		return shard{k: k, n: n}, nil
	}
	total, index := getenv("TEST_TOTAL_SHARDS"), getenv("TEST_SHARD_INDEX")
	if total == "" {
		return shard{}, nil
	}
	n, err1 := strconv.Atoi(total)
	i, err2 := strconv.Atoi(index)
	if err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return shard{}, fmt.Errorf("acpsnaptest: TEST_TOTAL_SHARDS=%q, TEST_SHARD_INDEX=%q: want 0 <= index < total", total, index)
	}
	return shard{k: i + 1, n: n, status: getenv("TEST_SHARD_STATUS_FILE")}, nil
}

// selection is the check selection of s (everything when unsharded).
func (s shard) selection() check.Selection {
	return check.Selection{Shard: s.k, Shards: s.n}
}

// honour touches Bazel's shard status file, which tells Bazel the test
// runner shards (else Bazel warns that it does not).
func (s shard) honour() error {
	if s.status == "" {
		return nil
	}
	f, err := os.OpenFile(s.status, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("acpsnaptest: touch TEST_SHARD_STATUS_FILE: %w", err)
	}
	return f.Close()
}
