package snapshots

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/harness"
)

func TestChildIndex(t *testing.T) {
	for name, want := range map[string]int{
		"session.1.jsonl": 1, "session.12.jsonl": 12, "session.0.jsonl": 0, "session.01.jsonl": 0,
		"session.jsonl": 0, "session.x.jsonl": 0, "session.-1.jsonl": 0, "session.1.json": 0, "input.json": 0,
	} {
		if got := childIndex(name); got != want {
			t.Errorf("childIndex(%q) = %d, want %d", name, got, want)
		}
	}
}

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

// TestWriteFixtureAllOrNothing: when one file cannot be written, no file is
// replaced and no temporary file stays behind.
func TestWriteFixtureAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, StdoutFile), []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := writeFixture(dir, map[string][]byte{
		StdoutFile:                   []byte("new\n"),
		"missing-dir/" + SessionFile: []byte("x\n"),
	}, true)
	if err == nil {
		t.Fatal("writeFixture succeeded with an unwritable file")
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if d := cmp.Diff([]string{StdoutFile}, names); d != "" {
		t.Errorf("folder after a failed write (-want +got):\n%s", d)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, StdoutFile)); string(b) != "old\n" {
		t.Errorf("stdout fixture was replaced: %q", b)
	}
}

// TestWriteFixturePrunesChildren: refresh removes child logs the run no
// longer produced.
func TestWriteFixturePrunesChildren(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{harness.ChildFile(1), harness.ChildFile(2)} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	wrote, err := writeFixture(dir, map[string][]byte{SessionFile: []byte("s\n"), harness.ChildFile(1): []byte("c\n")}, true)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{harness.ChildFile(1), SessionFile}, wrote); d != "" {
		t.Errorf("wrote (-want +got):\n%s", d)
	}
	if st, err := os.Stat(filepath.Join(dir, SessionFile)); err != nil || st.Mode().Perm() != 0o644 {
		t.Errorf("written fixture mode = %v, %v; want 0644", st.Mode().Perm(), err)
	}
	if _, err := os.Stat(filepath.Join(dir, harness.ChildFile(2))); !os.IsNotExist(err) {
		t.Errorf("stale %s survived: %v", harness.ChildFile(2), err)
	}
}

func TestViolationString(t *testing.T) {
	for _, tc := range []struct {
		v    Violation
		want string
	}{
		{Violation{"orphan", "orphan folder: no snapshot.yml"}, "orphan: orphan folder: no snapshot.yml"},
		{Violation{"a/session.jsonl", "a/session.jsonl:3: event: seq is 2, want 1"}, "a/session.jsonl:3: event: seq is 2, want 1"},
		{Violation{"a", "a/stdout.expected.jsonl:6: not JSON"}, "a/stdout.expected.jsonl:6: not JSON"},
		{Violation{"a/x.txt", "stray file"}, "a/x.txt: stray file"},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.v, got, tc.want)
		}
	}
}
