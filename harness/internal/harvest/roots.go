package harvest

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

// Roots are the private temporary directories of one run, all under one
// directory whose name carries the run's process id and a random part.
type Roots struct {
	lease    *lease.Lease
	Base     string // <TempDir>/acpsnap-<pid>-<random>
	Cwd      string // base/workspace: the scenario cwd, seeded from workspace/
	Home     string // base/home: the agent's HOME
	Sessions string // base/sessions: ACPSNAP_SESSIONS_DIR
	Tmp      string // base/tmp: the agent's TMPDIR
}

// ErrSeed marks a Make error that is the scenario's workspace/'s (a
// FIFO, a name too long), not the machine's.
var ErrSeed = errors.New("the scenario's workspace/ cannot be copied")

// Make creates the run's roots (mode 0700) in the existing folder
// tempDir ("": os.TempDir()) and seeds the cwd from seed when that folder
// exists. The cwd's base name is always "workspace", so an agent that
// shows it stays deterministic.
func Make(tempDir, seed string) (*Roots, error) {
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
	r := &Roots{Base: base, lease: l, Cwd: filepath.Join(base, "workspace"), Home: filepath.Join(base, "home"),
		Sessions: filepath.Join(base, "sessions"), Tmp: filepath.Join(base, "tmp")}
	for _, d := range []string{r.Cwd, r.Home, r.Sessions, r.Tmp} {
		if err := os.Mkdir(d, 0o700); err != nil {
			r.Remove()
			return nil, err
		}
	}
	if err := copyTree(seed, r.Cwd); err != nil {
		r.Remove()
		return nil, fmt.Errorf("seed workspace: %w: %w", ErrSeed, err)
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

// Remove deletes the roots, first making every directory writable so that
// read-only folders the workspace or the agent made cannot keep them alive.
func (r *Roots) Remove() error {
	defer r.lease.Release()
	if err := os.RemoveAll(r.Base); err == nil {
		return nil
	}
	filepath.WalkDir(r.Base, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(path, 0o700)
		}
		return nil
	})
	return os.RemoveAll(r.Base)
}

// Keep lets the roots of a failed run stand for inspection: renamed
// acpsnap-kept-…, which the next run's reaping leaves alone. It returns
// where they are.
func (r *Roots) Keep() string {
	defer r.lease.Release()
	kept := filepath.Join(filepath.Dir(r.Base), rootPrefix+"kept-"+strings.TrimPrefix(filepath.Base(r.Base), rootPrefix))
	if os.Rename(r.Base, kept) != nil {
		return r.Base
	}
	return kept
}
