package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "log")
	os.WriteFile(regular, []byte("hello\n"), 0o644)
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	type testCase struct {
		path string
		max  int64
		want string // error substring; "": read "hello\n"
		is   error
	}
	for _, tc := range []testCase{
		{regular, 100, "", nil},
		{regular, 3, "6 bytes, more than the 3 allowed", ErrTooLarge},
		{fifo, 100, "not a regular file (named pipe)", ErrNotRegular},
		{zero, 100, "not a regular file (a symbolic link)", ErrNotRegular},
		{"/dev/zero", 100, "not a regular file (character device)", ErrNotRegular},
		{dir, 100, "not a regular file (directory)", ErrNotRegular},
	} {
		b, err := Read(tc.path, tc.max)
		if tc.want == "" {
			if err != nil || string(b) != "hello\n" {
				t.Errorf("Read(%s) = %q, %v", tc.path, b, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is) {
			t.Errorf("Read(%s) error = %v, want %q (%v)", tc.path, err, tc.want, tc.is)
		}
	}
}
