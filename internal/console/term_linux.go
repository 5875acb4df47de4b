package console

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

// Width is the number of columns of the terminal f; 0 when f is not a
// terminal or does not say (TIOCGWINSZ).
func Width(f *os.File) int {
	var ws struct{ Row, Col, X, Y uint16 }
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws))); errno != 0 {
		return 0
	}
	return int(ws.Col)
}

func termios(f *os.File, req uintptr, t *syscall.Termios) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), req, uintptr(unsafe.Pointer(t))); errno != 0 {
		return errno
	}
	return nil
}
