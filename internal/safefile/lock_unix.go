//go:build unix

package safefile

import (
	"os"

	"golang.org/x/sys/unix"
)

// lock takes the exclusive lock of the folder dir (flock, waiting for it);
// the kernel releases it when the process dies.
func lock(dir string) (func(), error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
