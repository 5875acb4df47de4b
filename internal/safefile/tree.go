package safefile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// DefaultMaxFileBytes caps each file of a tree (CopyTree, Equal) when the
// caller gives no cap: 64 MiB.
const DefaultMaxFileBytes = 64 << 20

// TreeConfig says how CopyTree copies a tree.
type TreeConfig struct {
	// MaxFileBytes caps each file copied; 0: DefaultMaxFileBytes. A bigger
	// file fails the copy, named by its path in the tree.
	MaxFileBytes int64
	// Transform rewrites a file's content, or a link's target, before it
	// is written; rel is the slash-separated path in the tree. nil: files
	// are streamed as they are (never held whole in memory).
	Transform func(rel string, data []byte) []byte
	// Link hard-links regular files instead of copying them, where the
	// file system allows (a file that cannot be linked is copied).
	Link bool
	// Confine refuses a symbolic link that is absolute or climbs out of
	// the tree ("../x" from its root).
	Confine bool
	// Skip leaves an entry out (a folder with all it holds), by its base
	// name; nil: none.
	Skip func(name string) bool
	// SkipPath leaves an entry out by its slash-separated path in the
	// tree; nil: none.
	SkipPath func(rel string) bool
}

func (c TreeConfig) max() int64 {
	if c.MaxFileBytes > 0 {
		return c.MaxFileBytes
	}
	return DefaultMaxFileBytes
}

// CopyTree fills the existing empty folder dst with the tree under src:
// folders with their modes (set last, deepest first, so that a read-only
// one is still filled; dst's own mode is left alone), regular files with
// their modes, read without following links or blocking and capped,
// symbolic links recreated as written (never followed; a link Bazel made
// is copied as the file it mirrors, Mirrored). Anything else (a
// FIFO, a socket, a device) is refused, named by its path in the tree. On
// an error dst is left partly filled: the caller removes it.
func CopyTree(src, dst string, cfg TreeConfig) error {
	var dirs []string // made, deepest last
	var modes []fs.FileMode
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if rel == "." {
			return nil
		}
		if cfg.Skip != nil && cfg.Skip(d.Name()) || cfg.SkipPath != nil && cfg.SkipPath(filepath.ToSlash(rel)) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := Info(p, d)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if info.IsDir() {
			dirs, modes = append(dirs, to), append(modes, info.Mode().Perm())
			return os.Mkdir(to, 0o700)
		}
		return copyEntry(p, to, filepath.ToSlash(rel), info.Mode(), cfg)
	})
	if err != nil {
		return err
	}
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := os.Chmod(dirs[i], modes[i]); err != nil {
			return err
		}
	}
	return nil
}

// copyEntry places the non-folder entry from (rel in the tree, of mode m)
// at to.
func copyEntry(from, to, rel string, m fs.FileMode, cfg TreeConfig) error {
	switch {
	case m&fs.ModeSymlink != 0:
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		if cfg.Transform != nil {
			target = string(cfg.Transform(rel, []byte(target)))
		}
		if cfg.Confine && Escapes(rel, target) {
			return fmt.Errorf("safefile: %s: symlink to %q points out of the tree", rel, target)
		}
		return os.Symlink(target, to)
	case m.IsRegular():
		if cfg.Link && os.Link(from, to) == nil {
			return nil
		}
		return copyFile(from, to, rel, m.Perm(), cfg)
	}
	return fmt.Errorf("safefile: %s: not a file, folder or symbolic link (%s)", rel, Kind(m))
}

// copyFile copies the regular file from (rel in the tree) to the new file
// to with mode perm, through cfg.Transform when set.
func copyFile(from, to, rel string, perm fs.FileMode, cfg TreeConfig) error {
	in, _, err := Open(from, rel, cfg.max())
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = stream(out, in, rel, cfg)
	if err == nil {
		err = out.Chmod(perm)
	}
	return errors.Join(err, out.Close())
}

// stream writes in to out, at most cfg.max() bytes, through cfg.Transform
// when set.
func stream(out io.Writer, in io.Reader, rel string, cfg TreeConfig) error {
	limited := io.LimitReader(in, cfg.max()+1) // the file may grow while it is read
	if cfg.Transform == nil {
		n, err := io.Copy(out, limited)
		if err == nil && n > cfg.max() {
			err = tooLarge(rel, cfg.max())
		}
		return err
	}
	b, err := io.ReadAll(limited)
	if err != nil {
		return err
	}
	if int64(len(b)) > cfg.max() {
		return tooLarge(rel, cfg.max())
	}
	_, err = out.Write(cfg.Transform(rel, b))
	return err
}

func tooLarge(name string, max int64) error {
	return fmt.Errorf("safefile: %s: more than the %d bytes allowed: %w", name, max, ErrTooLarge)
}

// Equal reports whether the regular files a and b (named nameA and nameB
// in errors) hold the same bytes, reading both in pieces, each capped at
// max bytes (0: DefaultMaxFileBytes).
func Equal(a, nameA, b, nameB string, max int64) (bool, error) {
	max = TreeConfig{MaxFileBytes: max}.max()
	fa, sa, err := Open(a, nameA, max)
	if err != nil {
		return false, err
	}
	defer fa.Close()
	fb, sb, err := Open(b, nameB, max)
	if err != nil {
		return false, err
	}
	defer fb.Close()
	if sa != sb {
		return false, nil
	}
	ra, rb := io.LimitReader(fa, max+1), io.LimitReader(fb, max+1)
	bufA, bufB := make([]byte, 64<<10), make([]byte, 64<<10)
	for {
		na, errA := io.ReadFull(ra, bufA)
		nb, errB := io.ReadFull(rb, bufB)
		if !bytes.Equal(bufA[:na], bufB[:nb]) {
			return false, nil
		}
		endA, endB := errA == io.EOF || errA == io.ErrUnexpectedEOF, errB == io.EOF || errB == io.ErrUnexpectedEOF
		switch {
		case errA != nil && !endA:
			return false, fmt.Errorf("safefile: %s: %w", nameA, errA)
		case errB != nil && !endB:
			return false, fmt.Errorf("safefile: %s: %w", nameB, errB)
		case endA || endB:
			return endA && endB, nil
		}
	}
}

// Escapes reports whether a link target, relative to the link at rel (a
// slash-separated path in a tree), leaves the tree: absolute, or climbing
// above its root.
func Escapes(rel, target string) bool {
	if path.IsAbs(target) || filepath.IsAbs(target) {
		return true
	}
	p := path.Join(path.Dir(rel), filepath.ToSlash(target))
	return p == ".." || strings.HasPrefix(p, "../")
}
