// Package atomicfile writes files so that a reader never sees half of one:
// the content goes to a temporary file in the same folder, which is then
// renamed over the target.
package atomicfile

import (
	"os"
	"path/filepath"
)

// Stage writes data to a new temporary file in dir (named after name, mode
// perm) and returns its path; the caller renames it into place, or removes
// it. Nothing is left behind on error.
func Stage(dir, name string, data []byte, perm os.FileMode) (string, error) {
	f, err := os.CreateTemp(dir, "."+name+".tmp-*")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), perm) // CreateTemp makes 0600 files
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// Write replaces path with data (mode perm) atomically.
func Write(path string, data []byte, perm os.FileMode) error {
	tmp, err := Stage(filepath.Dir(path), filepath.Base(path), data, perm)
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
