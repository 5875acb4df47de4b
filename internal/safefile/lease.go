package safefile

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Lease is a folder held by this process.
type Lease struct {
	path string
	f    *os.File // holds the lock; nil once released
}

// LeaseNameLen is the length of the part of a folder's name LeaseDir adds to the
// prefix: the process id in 7 digits, "-" and 8 random letters and digits
// ("0004211-k2m9q4xa"). It is the same for every folder, so a path through
// one has the same length every run.
const LeaseNameLen = 16

// LeaseDir creates a new folder (mode 0700) in parent named prefix, this
// process's id in 7 digits, "-" and 8 random letters and digits, and holds
// it until Release or until the process ends.
func LeaseDir(parent, prefix string) (*Lease, error) {
	p, err := mkdir(parent, prefix+fmt.Sprintf("%07d", os.Getpid())+"-")
	if err != nil {
		return nil, fmt.Errorf("safefile: %w", err)
	}
	f, err := hold(p)
	if err != nil {
		os.Remove(p)
		return nil, fmt.Errorf("safefile: %s: %w", p, err)
	}
	return &Lease{path: p, f: f}, nil
}

// mkdir creates a folder named start and 8 random characters in parent.
func mkdir(parent, start string) (string, error) {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	for range 100 {
		b := make([]byte, 8)
		rand.Read(b)
		for i := range b {
			b[i] = alphabet[int(b[i])%len(alphabet)]
		}
		p := filepath.Join(parent, start+string(b))
		err := os.Mkdir(p, 0o700)
		if !errors.Is(err, fs.ErrExist) {
			return p, err
		}
	}
	return "", fmt.Errorf("mkdir %s: no free name", filepath.Join(parent, start+"*"))
}

// LeaseFile creates a new file in parent, named as LeaseDir names a folder, opened
// for writing, and holds it until Release (which closes f) or until the
// process ends: a file a killed process was writing is a leftover Reap
// removes.
func LeaseFile(parent, prefix string) (l *Lease, f *os.File, err error) {
	f, err = os.CreateTemp(parent, prefix+fmt.Sprintf("%07d", os.Getpid())+"-*")
	if err != nil {
		return nil, nil, fmt.Errorf("safefile: %w", err)
	}
	if err := flock(f); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, nil, fmt.Errorf("safefile: %s: %w", f.Name(), err)
	}
	return &Lease{path: f.Name(), f: f}, f, nil
}

// Path is the held folder or file.
func (l *Lease) Path() string { return l.path }

// Release lets the folder go (it is not removed). It is safe to call twice.
func (l *Lease) Release() {
	if l != nil && l.f != nil {
		l.f.Close()
		l.f = nil
	}
}

// Remove removes the held folder and its tree (read-only folders
// included), or the held file, then releases it.
func (l *Lease) Remove() error {
	err := RemoveAll(l.path)
	l.Release()
	return err
}

// Reap removes the folders and files directly in parent whose names start
// with prefix and a process id (as LeaseDir and LeaseFile name them) and whose holder
// is gone. It returns what it removed; an error names the first it could
// not remove, the others are still tried.
func Reap(parent, prefix string) ([]string, error) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil, fmt.Errorf("safefile: %w", err)
	}
	var removed []string
	var first error
	for _, e := range entries {
		pid, ok := owner(e.Name(), prefix)
		if !ok || !e.IsDir() && !e.Type().IsRegular() || alive(pid) {
			continue
		}
		p := filepath.Join(parent, e.Name())
		if !free(p) {
			continue
		}
		if err := RemoveAll(p); err != nil {
			if first == nil {
				first = fmt.Errorf("safefile: remove the leftover %s: %w", p, err)
			}
			continue
		}
		removed = append(removed, p)
	}
	return removed, first
}

// owner parses the process id out of a name LeaseDir made with prefix.
func owner(name, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, "-")
	pid, err := strconv.Atoi(digits)
	return pid, ok && err == nil && pid > 0
}
