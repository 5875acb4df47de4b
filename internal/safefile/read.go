package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrTooLarge is wrapped by errors about a file over the size cap.
var ErrTooLarge = errors.New("file too large")

// ErrNotRegular is wrapped by errors about a file that is not a regular
// file (a FIFO, a device, a socket, a directory, a symbolic link).
var ErrNotRegular = errors.New("not a regular file")

// Read reads the regular file at path, at most max bytes; a final
// symbolic link is refused.
func Read(path string, max int64) ([]byte, error) { return ReadAs(path, path, max) }

// ReadAs is Read naming the file name in its errors (a path relative to
// what the user knows, rather than a temporary folder's).
func ReadAs(path, name string, max int64) ([]byte, error) {
	f, err := open(path, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadOpen(f, name, max)
}

// open opens path for reading without blocking and without following a
// final symbolic link, unless Bazel made it (Mirrored): then the file it
// mirrors.
func open(path, name string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if errors.Is(err, syscall.ELOOP) {
		if real, ok := Mirrored(path); ok {
			f, err = os.OpenFile(real, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
		}
	}
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("safefile: %s: %w (a symbolic link)", name, ErrNotRegular)
		}
		return nil, fmt.Errorf("safefile: %s: %w", name, errors.Unwrap(err))
	}
	return f, nil
}

// Open opens the regular file at path (named name in errors) for reading
// when it has at most max bytes, as Read would read it, and returns it
// with its size: for a caller that streams it (Equal, CopyTree). The
// caller still reads at most max bytes (the file may grow).
func Open(path, name string, max int64) (*os.File, int64, error) {
	f, err := open(path, name)
	if err != nil {
		return nil, 0, err
	}
	size, err := checkOpen(f, name, max)
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, size, nil
}

// checkOpen returns the size of the open f when it is a regular file of at
// most max bytes.
func checkOpen(f *os.File, name string, max int64) (int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("safefile: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return 0, fmt.Errorf("safefile: %s: %w (%s)", name, ErrNotRegular, Kind(fi.Mode()))
	}
	if fi.Size() > max {
		return 0, fmt.Errorf("safefile: %s: %d bytes, more than the %d allowed: %w", name, fi.Size(), max, ErrTooLarge)
	}
	return fi.Size(), nil
}

// ReadOpen reads the open file f (named name in errors) when it is a
// regular file of at most max bytes. The caller opened it, ideally with
// O_NONBLOCK so that the open itself could not block.
func ReadOpen(f *os.File, name string, max int64) ([]byte, error) {
	if _, err := checkOpen(f, name, max); err != nil {
		return nil, err
	}
	// The file may grow while it is read: read one byte past the cap.
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("safefile: %s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("safefile: %s: more than the %d bytes allowed: %w", name, max, ErrTooLarge)
	}
	return b, nil
}

// Kind names the type of mode m in words ("named pipe", "socket",
// "symbolic link", …), for errors.
func Kind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "named pipe"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return m.Type().String()
}
