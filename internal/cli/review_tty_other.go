//go:build !linux

package cli

import "os"

// isTerminal reports whether f is a character device, the closest test
// the standard library offers here.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// keyMode leaves the terminal in line mode: a key is read with its Enter.
func keyMode(*os.File) func() { return func() {} }
