package scenario

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Pending lists the pending fixtures of the scenario folder dir: the
// entries whose name ends in PendingSuffix (session.jsonl.new,
// workspace.expected.new, …), as paths, sorted.
func Pending(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), PendingSuffix) && len(e.Name()) > len(PendingSuffix) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	return out
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
