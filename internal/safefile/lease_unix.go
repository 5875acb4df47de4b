//go:build unix

package safefile

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// hold opens the folder p and takes its lock.
func hold(p string) (*os.File, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	if err := flock(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// flock takes the lock of the open folder or file f.
func flock(f *os.File) error { return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) }

// free reports whether nobody holds the lock of the folder or file p.
func free(p string) bool {
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}

// alive reports whether process pid exists (EPERM: it does, as another
// user's).
func alive(pid int) bool {
	err := unix.Kill(pid, 0)
	return err == nil || errors.Is(err, unix.EPERM)
}
