package harvest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Pool holds the roots of runs that ended cleanly, emptied, for the next
// run in the same temporary folder: a corpus replayed by a few workers
// then makes its folders once per worker instead of once per scenario (on
// a disk where every mkdir and rmdir waits on the journal, that is a
// millisecond or more of each scenario). The roots stay leased while held.
// Close removes them. The zero value is ready; a Pool is safe for
// concurrent use.
type Pool struct {
	mu       sync.Mutex
	emptied  sync.Cond // signalled when roots being emptied are done
	free     []*Roots
	emptying []*Roots // recycled, not emptied yet
	closed   bool
}

// take returns roots p holds in the folder tempDir (absolute), waiting
// for roots being emptied there rather than making new ones; nil when p
// holds none there.
func (p *Pool) take(tempDir string) *Roots {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		for i, r := range p.free {
			if filepath.Dir(r.Base) == tempDir {
				p.free = append(p.free[:i], p.free[i+1:]...)
				return r
			}
		}
		if !slices.ContainsFunc(p.emptying, func(r *Roots) bool { return filepath.Dir(r.Base) == tempDir }) {
			return nil
		}
		p.wait()
	}
}

// wait waits, under p.mu, for roots being emptied to be done.
func (p *Pool) wait() {
	if p.emptied.L == nil {
		p.emptied.L = &p.mu
	}
	p.emptied.Wait()
}

// Recycle empties r for the next Make with p, in the background, or
// removes it when it cannot be emptied, p is closed or nil; the channel
// it returns then gets Remove's error (nil when there was none, and when
// r was emptied). Call it only when nothing the run started can still
// write there. A Make in r's folder waits for r rather than making new
// roots.
func (p *Pool) Recycle(r *Roots) <-chan error {
	done := make(chan error, 1)
	if p == nil {
		done <- r.Remove()
		return done
	}
	p.mu.Lock()
	p.emptying = append(p.emptying, r)
	p.mu.Unlock()
	go func() {
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
		p.emptied.Broadcast()
		p.mu.Unlock()
		done <- err
	}()
	return done
}

// Close waits for the roots being emptied and removes the roots p holds;
// what is recycled after it is removed.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	for len(p.emptying) > 0 {
		p.wait()
	}
	free := p.free
	p.free = nil
	p.mu.Unlock()
	var errs []error
	for _, r := range free {
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
