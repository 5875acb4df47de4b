package harvest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Pool holds the roots of runs that ended cleanly for the next run in the
// same temporary folder: a corpus replayed by a few workers then makes its
// folders once per worker instead of once per scenario (on a disk where
// every mkdir and rmdir waits on the journal, that is a millisecond or
// more of each scenario). What a run left in them is removed in the
// background while the next run takes other roots, so it costs that run
// no wait: a worker alternates between two sets of roots. The roots stay
// leased while held. Close removes them. The zero value is ready; a Pool
// is safe for concurrent use.
type Pool struct {
	mu       sync.Mutex
	emptied  sync.Cond // signalled when roots being emptied are done
	free     []*Roots  // emptied, ready for a run
	used     []*Roots  // recycled, not emptied yet
	emptying []*Roots  // being emptied in the background
	closed   bool
	errs     []error // what removing roots that could not be emptied failed with, for Close
}

// take returns emptied roots p holds in the folder tempDir (absolute), or
// nil when the caller is to make new ones: when none is ready and fewer
// than two are being emptied there. Either way it starts emptying, in the
// background, the roots recycled there, beside the run that takes these.
func (p *Pool) take(tempDir string) *Roots {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, r := range p.used {
		if filepath.Dir(r.Base) == tempDir {
			p.emptying = append(p.emptying, r)
			go p.clean(r)
		}
	}
	p.used = slices.DeleteFunc(p.used, func(r *Roots) bool { return filepath.Dir(r.Base) == tempDir })
	for {
		if i := slices.IndexFunc(p.free, func(r *Roots) bool { return filepath.Dir(r.Base) == tempDir }); i >= 0 {
			r := p.free[i]
			p.free = slices.Delete(p.free, i, i+1)
			return r
		}
		n := 0
		for _, r := range p.emptying {
			if filepath.Dir(r.Base) == tempDir {
				n++
			}
		}
		if n < 2 {
			return nil
		}
		p.wait()
	}
}

// clean empties r, which p holds among its roots being emptied, and makes
// it ready; roots that cannot be emptied, or that come back after Close,
// are removed.
func (p *Pool) clean(r *Roots) {
	err := r.empty()
	p.mu.Lock()
	keep := err == nil && !p.closed
	if keep {
		p.free = append(p.free, r)
	}
	p.mu.Unlock()
	if !keep {
		err = r.Remove()
	}
	p.mu.Lock()
	p.emptying = slices.DeleteFunc(p.emptying, func(x *Roots) bool { return x == r })
	if err != nil {
		p.errs = append(p.errs, err)
	}
	p.emptied.Broadcast()
	p.mu.Unlock()
}

// wait waits, under p.mu, for roots being emptied to be done.
func (p *Pool) wait() {
	if p.emptied.L == nil {
		p.emptied.L = &p.mu
	}
	p.emptied.Wait()
}

// Recycle gives r back to p, to be emptied for a later Make beside the
// next run in its folder; it removes r when p is nil or closed, and
// returns Remove's error. Call it only when nothing the run started can
// still write there.
func (p *Pool) Recycle(r *Roots) error {
	if p == nil {
		return r.Remove()
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return r.Remove()
	}
	p.used = append(p.used, r)
	p.mu.Unlock()
	return nil
}

// Close waits for the roots being emptied, removes every root p holds,
// and returns what removing them failed with, in the background too; what
// is recycled after it is removed.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	for len(p.emptying) > 0 {
		p.wait()
	}
	held := append(p.free, p.used...)
	errs := p.errs
	p.free, p.used, p.errs = nil, nil, nil
	p.mu.Unlock()
	for _, r := range held {
		errs = append(errs, r.Remove())
	}
	return errors.Join(errs...)
}

// empty removes whatever a run left in r: anything in the base besides its
// four folders, and everything inside those, which stay, mode 0700. A
// folder that is gone or no longer a folder (a symbolic link the agent
// put in its place) is an error: r is then removed, not reused.
func (r *Roots) empty() error {
	dirs := map[string]bool{r.Cwd: true, r.Home: true, r.Sessions: true, r.Tmp: true}
	entries, err := os.ReadDir(r.Base)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if p := filepath.Join(r.Base, e.Name()); !dirs[p] {
			if err := removeAll(p); err != nil {
				return err
			}
		}
	}
	for d := range dirs {
		fi, err := os.Lstat(d)
		if err != nil {
			return err
		}
		if !fi.IsDir() {
			return fmt.Errorf("%s is no longer a folder", d)
		}
		if fi.Mode().Perm() != 0o700 {
			if err := os.Chmod(d, 0o700); err != nil {
				return err
			}
		}
		entries, err := os.ReadDir(d)
		if err != nil {
			return err
		}
		for _, e := range entries {
			if err := removeAll(filepath.Join(d, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}
