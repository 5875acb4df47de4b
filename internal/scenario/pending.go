package scenario

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Pending lists the pending fixtures of the scenario folder dir: the
// entries IsPending names (session.jsonl.new, workspace.expected.new, …),
// as paths, sorted. Any other name that ends in PendingSuffix is no
// pending fixture (a file planted as evil.sh.new is never installed as
// evil.sh), and the guards call it a stray file.
func Pending(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if IsPending(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
}

// IsPending reports whether name is the name of a pending fixture, as a
// -pending run writes them: PendingSuffix after the name of a fixture a
// run compares (stdout.expected.jsonl, session.jsonl, a child log, the
// expected workspace).
func IsPending(name string) bool {
	f, ok := strings.CutSuffix(name, PendingSuffix)
	return ok && (f == StdoutFile || f == SessionFile || f == ExpectedDir || ChildIndex(f) > 0)
}

// PendingTarget is the fixture a pending path stands for: its path without
// PendingSuffix.
func PendingTarget(pending string) string { return strings.TrimSuffix(pending, PendingSuffix) }

// ClearPending removes the pending fixtures of the scenario folder dir.
func ClearPending(dir string) error {
	for _, p := range Pending(dir) {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	return nil
}
