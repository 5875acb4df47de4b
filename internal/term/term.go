// Package term answers the questions the command line asks of a
// terminal: is this file one (so output may redraw a line and use colour),
// how wide is it (diffs and transcripts fill it), and can keys be read as
// they are typed (acpsnap review).
//
//	if term.IsTerminal(os.Stdout) && os.Getenv("NO_COLOR") == "" { … }
//	cols := term.Width(os.Stdout) // 0: not a terminal
//	restore := term.KeyMode(os.Stdin)
//	defer restore()
//
// On Linux both use the termios ioctls of package syscall (no extra
// dependency); elsewhere IsTerminal reports a character device and
// KeyMode leaves the terminal in line mode, where a key is read with its
// Enter.
package term
