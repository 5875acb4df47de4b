package term

import (
	"os"
	"syscall"
	"unsafe"
)

// IsTerminal reports whether f is a terminal (it answers TCGETS).
func IsTerminal(f *os.File) bool {
	var t syscall.Termios
	return termios(f, syscall.TCGETS, &t) == nil
}

// KeyMode puts the terminal f in cbreak mode (each key is read as it is
// typed, without echo; Ctrl-C and Ctrl-D arrive as bytes 3 and 4, so the
// caller always gets to restore the terminal) and returns the function that
// restores it. When the mode cannot be set, keys are read a line at a time
// and restore does nothing.
func KeyMode(f *os.File) (restore func()) {
	var old syscall.Termios
	if termios(f, syscall.TCGETS, &old) != nil {
		return func() {}
	}
	t := old
	t.Lflag &^= syscall.ICANON | syscall.ECHO | syscall.ISIG
	t.Cc[syscall.VMIN], t.Cc[syscall.VTIME] = 1, 0
	if termios(f, syscall.TCSETS, &t) != nil {
		return func() {}
	}
	return func() { termios(f, syscall.TCSETS, &old) }
}

func termios(f *os.File, req uintptr, t *syscall.Termios) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(unsafe.Pointer(t))); errno != 0 {
		return errno
	}
	return nil
}
