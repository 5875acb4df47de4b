package console

import (
	"os"
	"testing"

	"github.com/creack/pty"
)

func TestIsTerminalAndKeyMode(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	if !IsTerminal(tty) {
		t.Errorf("IsTerminal(pty) = false, want true")
	}
	f, err := os.CreateTemp(t.TempDir(), "plain")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if IsTerminal(f) {
		t.Errorf("IsTerminal(regular file) = true, want false")
	}
	restore := KeyMode(tty)
	// In cbreak mode one key is readable without Enter.
	if _, err := ptmx.Write([]byte("a")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 1)
	if n, err := tty.Read(b); err != nil || n != 1 || b[0] != 'a' {
		t.Errorf("read in key mode = %d %q %v, want the one key", n, b[:n], err)
	}
	restore()
	KeyMode(f)() // not a terminal: nothing to set or restore
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 40, Cols: 173}); err != nil {
		t.Fatal(err)
	}
	if w := Width(tty); w != 173 {
		t.Errorf("Width(pty of 173 columns) = %d", w)
	}
	if w := Width(f); w != 0 {
		t.Errorf("Width(regular file) = %d, want 0", w)
	}
}
