package check

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/acpsnap/acpsnap/internal/atomicfile"
	"github.com/acpsnap/acpsnap/scenario"
)

// writeFixture writes files (name → content) into dir all-or-nothing: every
// file goes to a temporary file first; only when all are written are they
// renamed into place. With pruneChildren, child logs beyond those written
// are removed. It returns the names written, sorted.
func writeFixture(dir string, files map[string][]byte, pruneChildren bool) ([]string, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	temps := map[string]string{}
	cleanup := func() {
		for _, t := range temps {
			os.Remove(t)
		}
	}
	for _, n := range names {
		t, err := atomicfile.Stage(dir, n, files[n], 0o644)
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("check: write %s: %w", filepath.Join(dir, n), err)
		}
		temps[n] = t
	}
	for _, n := range names {
		if err := os.Rename(temps[n], filepath.Join(dir, n)); err != nil {
			cleanup()
			return nil, fmt.Errorf("check: write %s: %w", filepath.Join(dir, n), err)
		}
		delete(temps, n)
	}
	if pruneChildren {
		for _, p := range scenario.ChildLogs(dir) {
			if _, ok := files[filepath.Base(p)]; !ok {
				if err := os.Remove(p); err != nil {
					return names, fmt.Errorf("check: remove stale %s: %w", p, err)
				}
			}
		}
	}
	return names, nil
}
