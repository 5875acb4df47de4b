// This file reads what Bazel's test runner tells a test through the
// environment (the Test Encyclopedia): the shard to run, the file that
// says the test shards, where its XML report goes and its runfiles trees.
// docs/ci.md ("Bazel") says what a user writes.

package frontend

import (
	"fmt"
	"os"
	"strconv"
)

// The variables Bazel sets for a test, as the front ends read them.
const (
	TotalShardsEnv = "TEST_TOTAL_SHARDS"
	ShardIndexEnv  = "TEST_SHARD_INDEX"
	StatusFileEnv  = "TEST_SHARD_STATUS_FILE"
	XMLOutputEnv   = "XML_OUTPUT_FILE"
	RunfilesEnv    = "RUNFILES_DIR"
	SrcdirEnv      = "TEST_SRCDIR"
)

// Bazel is what Bazel's runner asks of one test process.
type Bazel struct {
	// Shard of Shards (1-based: TEST_SHARD_INDEX+1 of TEST_TOTAL_SHARDS);
	// Shards 0: not sharded.
	Shard, Shards int
	// StatusFile is touched to say the test honours sharding ("": none).
	StatusFile string
	// XMLOutput is where the JUnit report goes ("": nowhere).
	XMLOutput string
	// Runfiles are the runfiles trees (RUNFILES_DIR, TEST_SRCDIR), whose
	// links safefile.Trust accepts; none outside Bazel.
	Runfiles []string
}

// ReadBazel reads the variables of the test protocol through getenv. A shard
// index outside 0 ≤ index < total is an error.
func ReadBazel(getenv func(string) string) (Bazel, error) {
	t := Bazel{XMLOutput: getenv(XMLOutputEnv)}
	for _, name := range []string{RunfilesEnv, SrcdirEnv} {
		if v := getenv(name); v != "" {
			t.Runfiles = append(t.Runfiles, v)
		}
	}
	total, index := getenv(TotalShardsEnv), getenv(ShardIndexEnv)
	if total == "" {
		return t, nil
	}
	n, err1 := strconv.Atoi(total)
	i, err2 := strconv.Atoi(index)
	if err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return t, fmt.Errorf("%s=%q, %s=%q: want 0 <= index < total", TotalShardsEnv, total, ShardIndexEnv, index)
	}
	t.Shard, t.Shards, t.StatusFile = i+1, n, getenv(StatusFileEnv)
	return t, nil
}

// Touch creates the shard status file, which tells Bazel the test shards
// (Bazel 7 fails a sharded test that does not); nothing without one.
func (t Bazel) Touch() error {
	if t.StatusFile == "" {
		return nil
	}
	f, err := os.OpenFile(t.StatusFile, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("touch %s: %w", StatusFileEnv, err)
	}
	return f.Close()
}
