package harvest

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// rootPrefix starts the name of a run's root folder: acpsnap-<pid>-<random>,
// held (internal/safefile) for the run, so the next run removes the roots of
// a killed one. Kept roots are renamed acpsnap-kept-<pid>-<random>, which
// no run removes. The rest of the name has one length (safefile.LeaseNameLen), so
// every path through the roots has one length every run in one TempDir.
const rootPrefix = "acpsnap-"

// Roots are the private temporary directories of one run, all under one
// directory whose name carries the run's process id and a random part.
type Roots struct {
	lease    *safefile.Lease
	Base     string // <TempDir>/acpsnap-<pid>-<random>
	Nonce    string // <pid>-<random>: what differs from run to run, of one length
	Cwd      string // base/workspace: the scenario cwd, seeded from workspace/
	Home     string // base/home: the agent's HOME
	Sessions string // base/sessions: ACPSNAP_SESSIONS_DIR
	Tmp      string // base/tmp: the agent's TMPDIR
}

// ErrSeed marks a Make error that is the scenario's workspace/'s (a
// FIFO, a name too long), not the machine's.
var ErrSeed = errors.New("the scenario's workspace/ cannot be copied")

// Make creates the run's roots (mode 0700) in the existing folder
// tempDir ("": os.TempDir()), or takes empty ones pool holds there (nil:
// none), and seeds the cwd from seed when that folder exists. The cwd's
// base name is always "workspace", so an agent that shows it stays
// deterministic.
func Make(pool *Pool, tempDir, seed string) (*Roots, error) {
	tempDir, err := filepath.Abs(cmp.Or(tempDir, os.TempDir()))
	if err != nil {
		return nil, err
	}
	if r := pool.take(tempDir); r != nil {
		if err := copyTree(seed, r.Cwd); err != nil {
			r.Remove()
			return nil, fmt.Errorf("seed workspace: %w: %w", ErrSeed, err)
		}
		return r, nil
	}
	if fi, err := os.Stat(tempDir); err != nil {
		return nil, fmt.Errorf("temporary folder: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("temporary folder %s is not a directory", tempDir)
	}
	safefile.Reap(tempDir, rootPrefix) // the roots of killed runs; a failure to is no reason to stop this one
	l, err := safefile.LeaseDir(tempDir, rootPrefix)
	if err != nil {
		return nil, err
	}
	base := l.Path()
	r := &Roots{Base: base, Nonce: strings.TrimPrefix(filepath.Base(base), rootPrefix), lease: l, Cwd: filepath.Join(base, "workspace"), Home: filepath.Join(base, "home"),
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

// Others are the roots' folders besides the cwd and the home: the
// agent's TMPDIR and the sessions folder.
func (r *Roots) Others() []string { return []string{r.Tmp, r.Sessions} }

// copyTree copies src into the existing dst (safefile.CopyTree: modes and
// symbolic links kept, files capped like fixtures, anything else refused).
// A missing src copies nothing.
func copyTree(src, dst string) error {
	if _, err := os.Lstat(src); os.IsNotExist(err) {
		return nil
	}
	if err := safefile.CopyTree(src, dst, safefile.TreeConfig{MaxFileBytes: scenario.MaxFileBytes}); err != nil {
		return fmt.Errorf("%s: %w", src, err)
	}
	return nil
}

// Remove deletes the roots, first making every directory writable so that
// read-only folders the workspace or the agent made cannot keep them alive.
func (r *Roots) Remove() error {
	defer r.lease.Release()
	return removeAll(r.Base)
}

// removeAll is os.RemoveAll, and safefile.RemoveAll (read-only folders
// made writable first) when that fails.
func removeAll(p string) error {
	if os.RemoveAll(p) == nil {
		return nil
	}
	return safefile.RemoveAll(p)
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
