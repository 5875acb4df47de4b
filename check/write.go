package check

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"

	"github.com/acpsnap/acpsnap/internal/atomicfile"
	"github.com/acpsnap/acpsnap/scenario"
)

// writeFixture publishes the scenario in dir with files (name → content)
// and, when ws is not nil, the run's workspace as workspace.expected/,
// all-or-nothing (atomicfile.Publish): a failed or killed write leaves the
// old fixture set whole. With pruneChildren, child logs beyond those
// written are removed. It returns the names written, sorted.
func writeFixture(dir string, files map[string][]byte, ws *workspace, pruneChildren bool) ([]string, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	err := atomicfile.Publish(dir, func(stage string) error {
		if ws != nil {
			if err := ws.write(filepath.Join(stage, scenario.ExpectedDir)); err != nil {
				return fmt.Errorf("check: write %s: %w", filepath.Join(dir, scenario.ExpectedDir), err)
			}
		}
		for _, n := range names {
			p := filepath.Join(stage, n)
			os.Remove(p) // a hard link to the published file: never write through it
			if err := os.WriteFile(p, files[n], 0o644); err != nil {
				return fmt.Errorf("check: write %s: %w", filepath.Join(dir, n), cause(err))
			}
		}
		if !pruneChildren {
			return nil
		}
		for _, p := range scenario.ChildLogs(stage) {
			if _, ok := files[filepath.Base(p)]; !ok {
				if err := os.Remove(p); err != nil {
					return fmt.Errorf("check: remove stale %s: %w", filepath.Join(dir, filepath.Base(p)), cause(err))
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return names, nil
}

// cause is the error of a path operation without the (staged) path.
func cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
