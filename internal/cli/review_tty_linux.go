package cli

import (
	"os"
	"syscall"
	"unsafe"
)

// isTerminal reports whether f is a terminal (it answers TCGETS).
func isTerminal(f *os.File) bool {
	var t syscall.Termios
	return termiosCall(f, syscall.TCGETS, &t) == nil
}

// keyMode puts the terminal f in cbreak mode (each key is read as it is
// typed, without echo; Ctrl-C arrives as a byte, so the terminal is always
// restored) and returns the function that restores it. When the mode
// cannot be set, keys are read a line at a time.
func keyMode(f *os.File) func() {
	var old syscall.Termios
	if termiosCall(f, syscall.TCGETS, &old) != nil {
		return func() {}
	}
	t := old
	t.Lflag &^= syscall.ICANON | syscall.ECHO | syscall.ISIG
	t.Cc[syscall.VMIN], t.Cc[syscall.VTIME] = 1, 0
	if termiosCall(f, syscall.TCSETS, &t) != nil {
		return func() {}
	}
	return func() { termiosCall(f, syscall.TCSETS, &old) }
}

func termiosCall(f *os.File, req uintptr, t *syscall.Termios) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(unsafe.Pointer(t))); errno != 0 {
		return errno
	}
	return nil
}
