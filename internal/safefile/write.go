package safefile

import (
	"os"
	"path/filepath"
)

// Stage writes data to a new temporary file in dir, .<name>.tmp-<pid>-<random>
// (mode perm), and returns its path; the caller renames it into place, or
// removes it. Nothing is left behind on error. The file is held (package
// lease) while it is written, and a later Stage of name in dir first
// removes what a killed one left (an 80 MiB report once stayed forever).
func Stage(dir, name string, data []byte, perm os.FileMode) (string, error) {
	prefix := "." + name + ".tmp-"
	Reap(dir, prefix) // a killed write's; one that stays is no reason to stop this one
	l, f, err := LeaseFile(dir, prefix)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Chmod(perm) // CreateTemp makes 0600 files
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	l.Release() // the lock went with the close
	if err != nil {
		os.Remove(l.Path())
		return "", err
	}
	return l.Path(), nil
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
