package agent

import (
	"os"

	"golang.org/x/sys/unix"
)

// outputFile is the file a local command writes its output to, and the
// function that disposes of it. On Linux it is a memfd: an anonymous file
// in memory, which creates no inode in TMPDIR (on some file systems that
// costs a millisecond), and is gone when closed.
func outputFile() (*os.File, func(), error) {
	fd, err := unix.MemfdCreate("acpsnap-bash", unix.MFD_CLOEXEC)
	if err != nil {
		return tempOutputFile() // a kernel without memfd
	}
	f := os.NewFile(uintptr(fd), "acpsnap-bash")
	return f, func() { f.Close() }, nil
}
