package harness

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/lease"
)

// rootPrefix starts the name of a run's root folder: acpsnap-<pid>-<random>,
// held (internal/lease) for the run, so the next run removes the roots of
// a killed one. Kept roots are renamed acpsnap-kept-<pid>-<random>, which
// no run removes.
const rootPrefix = "acpsnap-"

// roots are the private temporary directories of one run, all under one
// directory whose name carries the run's process id and a random part.
type roots struct {
	lease    *lease.Lease
	base     string // <TempDir>/acpsnap-<pid>-<random>
	cwd      string // base/workspace: the scenario cwd, seeded from workspace/
	home     string // base/home: the agent's HOME
	sessions string // base/sessions: ACPSNAP_SESSIONS_DIR
	tmp      string // base/tmp: the agent's TMPDIR
}

// errSeed marks a makeRoots error that is the scenario's workspace/'s (a
// FIFO, a name too long), not the machine's.
var errSeed = errors.New("the scenario's workspace/ cannot be copied")

// makeRoots creates the run's roots (mode 0700) in the existing folder
// tempDir ("": os.TempDir()) and seeds the cwd from seed when that folder
// exists. The cwd's base name is always "workspace", so an agent that
// shows it stays deterministic.
func makeRoots(tempDir, seed string) (*roots, error) {
	tempDir, err := filepath.Abs(cmp.Or(tempDir, os.TempDir()))
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(tempDir); err != nil {
		return nil, fmt.Errorf("temporary folder: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("temporary folder %s is not a directory", tempDir)
	}
	lease.Reap(tempDir, rootPrefix) // the roots of killed runs; a failure to is no reason to stop this one
	l, err := lease.Dir(tempDir, rootPrefix)
	if err != nil {
		return nil, err
	}
	base := l.Path()
	r := &roots{base: base, lease: l, cwd: filepath.Join(base, "workspace"), home: filepath.Join(base, "home"),
		sessions: filepath.Join(base, "sessions"), tmp: filepath.Join(base, "tmp")}
	for _, d := range []string{r.cwd, r.home, r.sessions, r.tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			r.remove()
			return nil, err
		}
	}
	if err := copyTree(seed, r.cwd); err != nil {
		r.remove()
		return nil, fmt.Errorf("seed workspace: %w: %w", errSeed, err)
	}
	return r, nil
}

// copyTree copies src into the existing dst, preserving permission bits and
// symbolic links. A missing src copies nothing.
func copyTree(src, dst string) error {
	if _, err := os.Lstat(src); os.IsNotExist(err) {
		return nil
	}
	type dirMode struct {
		path string
		mode fs.FileMode
	}
	var dirs []dirMode
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if rel != "." {
				dirs = append(dirs, dirMode{target, info.Mode().Perm()})
			}
			return os.MkdirAll(target, 0o700)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return copyFile(path, target, info.Mode().Perm())
		}
		return fmt.Errorf("%s: unsupported file type %v", path, d.Type())
	})
	if err != nil {
		return err
	}
	// Directory modes last, deepest first, so read-only folders can be filled.
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(dirs[i].path, dirs[i].mode); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string, mode fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if err == nil {
		err = out.Chmod(mode)
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// remove deletes the roots, first making every directory writable so that
// read-only folders the workspace or the agent made cannot keep them alive.
func (r *roots) remove() error {
	defer r.lease.Release()
	if err := os.RemoveAll(r.base); err == nil {
		return nil
	}
	filepath.WalkDir(r.base, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(path, 0o700)
		}
		return nil
	})
	return os.RemoveAll(r.base)
}

// keep lets the roots of a failed run stand for inspection: renamed
// acpsnap-kept-…, which the next run's reaping leaves alone. It returns
// where they are.
func (r *roots) keep() string {
	defer r.lease.Release()
	kept := filepath.Join(filepath.Dir(r.base), rootPrefix+"kept-"+strings.TrimPrefix(filepath.Base(r.base), rootPrefix))
	if os.Rename(r.base, kept) != nil {
		return r.base
	}
	return kept
}
