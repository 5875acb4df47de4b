package snapshots

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
		t, err := writeTemp(dir, n, files[n])
		if err != nil {
			cleanup()
			return nil, fmt.Errorf("snapshots: write %s: %w", filepath.Join(dir, n), err)
		}
		temps[n] = t
	}
	for _, n := range names {
		if err := os.Rename(temps[n], filepath.Join(dir, n)); err != nil {
			cleanup()
			return nil, fmt.Errorf("snapshots: write %s: %w", filepath.Join(dir, n), err)
		}
		delete(temps, n)
	}
	if pruneChildren {
		for _, p := range childFiles(dir) {
			if _, ok := files[filepath.Base(p)]; !ok {
				if err := os.Remove(p); err != nil {
					return names, fmt.Errorf("snapshots: remove stale %s: %w", p, err)
				}
			}
		}
	}
	return names, nil
}

func writeTemp(dir, name string, b []byte) (string, error) {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return "", err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	// CreateTemp makes 0600 files; fixtures are ordinary committed files.
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}
