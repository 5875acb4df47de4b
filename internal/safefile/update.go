package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// Update replaces path with what change makes of its current content (nil
// when there is none), atomically as Write does, while holding a lock on
// path's folder: processes that Update one file (the test binaries of one
// go test ./... adding to one report) take turns, and none loses what
// another added. Without file locks (not unix) the turns are not kept.
func Update(path string, perm os.FileMode, change func(old []byte) ([]byte, error)) error {
	unlock, err := lock(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer unlock()
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	b, err := change(old)
	if err != nil {
		return err
	}
	return Write(path, b, perm)
}
