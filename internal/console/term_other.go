//go:build !linux

package console

import "os"

// IsTerminal reports whether f is a character device, the closest test
// the standard library offers here.
func IsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// Width is 0: the width of a terminal is not known here.
func Width(*os.File) int { return 0 }

// KeyMode leaves the terminal in line mode: a key is read with its Enter.
func KeyMode(*os.File) (restore func()) { return func() {} }
