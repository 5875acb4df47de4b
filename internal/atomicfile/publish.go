package atomicfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/lease"
)

// Publish replaces the folder dir by a changed copy of it in one atomic
// step, so that a reader, or a run killed at any instant, sees either the
// whole old tree or the whole new one, never a mix. dir's tree is staged in
// a hidden folder beside it (hard links where the file system allows, so
// change must replace a file, never write into it: os.Remove it first);
// change writes the new files into the stage; then the stage and dir are
// exchanged (renameat2 RENAME_EXCHANGE on Linux; elsewhere two renames,
// with a short window where dir is missing) and the old tree is removed.
//
// The copy is <parent>/.<base>.publish-<pid>-<random>/<base>: it keeps
// dir's name (a scenario replayed there is still named after its folder),
// and the hidden folder that holds it is held (package lease): a run
// killed before or after the exchange leaves it, and the next Publish or
// Sweep of dir removes it. Leftovers of Write and of the old two-step
// copies inside dir (IsLeftover) are not staged, so publishing removes
// them too.
func Publish(dir string, change func(stage string) error) error {
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	prefix := "." + base + ".publish-"
	if _, err := lease.Reap(parent, prefix); err != nil {
		return fmt.Errorf("atomicfile: publish %s: %w", dir, err)
	}
	l, err := lease.Dir(parent, prefix)
	if err != nil {
		return fmt.Errorf("atomicfile: publish %s: %w", dir, err)
	}
	stage := filepath.Join(l.Path(), base)
	err = os.Mkdir(stage, 0o700)
	if err == nil {
		err = linkTree(dir, stage)
	}
	if err == nil {
		err = change(stage)
	}
	if err == nil {
		err = exchange(stage, dir)
	}
	// After the exchange the stage path holds the old tree; before it, the
	// unpublished stage. Either way it goes.
	rerr := l.Remove()
	if err != nil {
		return err
	}
	if rerr != nil {
		return fmt.Errorf("atomicfile: published %s, but could not remove the old tree %s: %w", dir, stage, rerr)
	}
	return nil
}

// Sweep removes the leftovers of writes to the folder dir that never
// finished: the stages of a killed Publish beside it (when their holder is
// gone) and the IsLeftover entries directly inside it. It returns what it
// removed.
func Sweep(dir string) ([]string, error) {
	removed, err := lease.Reap(filepath.Dir(dir), "."+filepath.Base(dir)+".publish-")
	if err != nil {
		return removed, fmt.Errorf("atomicfile: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return removed, fmt.Errorf("atomicfile: %w", err)
	}
	for _, e := range entries {
		if !IsLeftover(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.RemoveAll(p); err != nil {
			return removed, fmt.Errorf("atomicfile: remove the leftover %s: %w", p, err)
		}
		removed = append(removed, p)
	}
	return removed, nil
}

// IsLeftover reports whether a file name is the temporary of a write that
// never finished: Stage's ".<name>.tmp-<random>", a copy's ".<name>.old-<random>"
// (internal/treediff), or a stage of Publish (".<name>.publish-<pid>-<random>").
func IsLeftover(name string) bool {
	if !strings.HasPrefix(name, ".") {
		return false
	}
	for _, mark := range []string{".tmp-", ".old-", ".publish-"} {
		if i := strings.LastIndex(name, mark); i > 1 && i+len(mark) < len(name) {
			return true
		}
	}
	return false
}

// linkTree fills the empty folder stage with dir's tree: folders made with
// their modes, files hard-linked (copied where links are refused),
// symbolic links recreated. Leftovers are skipped; anything else (a FIFO, a
// device) is refused.
func linkTree(dir, stage string) error {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == "." {
			return nil
		}
		if IsLeftover(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		return stageEntry(p, filepath.Join(stage, rel), d)
	})
	if err == nil {
		err = copyMode(dir, stage)
	}
	if err != nil {
		return fmt.Errorf("atomicfile: publish %s: stage: %w", dir, err)
	}
	return nil
}

// stageEntry places one entry of the tree at to.
func stageEntry(from, to string, d fs.DirEntry) error {
	switch {
	case d.IsDir():
		return os.Mkdir(to, 0o700) // its mode once filled: see copyMode
	case d.Type()&fs.ModeSymlink != 0:
		target, err := os.Readlink(from)
		if err != nil {
			return err
		}
		return os.Symlink(target, to)
	case d.Type().IsRegular():
		if os.Link(from, to) == nil {
			return nil
		}
		return copyFile(from, to)
	}
	return fmt.Errorf("%s: not a file, folder or symbolic link (%s)", from, d.Type())
}

// copyFile copies the regular file from to the new file to, mode kept.
func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	fi, err := src.Stat()
	if err != nil {
		return err
	}
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	return errors.Join(err, dst.Close())
}

// copyMode gives stage's folders the modes of dir's, deepest first, so that
// a read-only folder was still filled.
func copyMode(dir, stage string) error {
	var dirs []string
	filepath.WalkDir(stage, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		rel, _ := filepath.Rel(stage, dirs[i])
		fi, err := os.Stat(filepath.Join(dir, rel))
		if err != nil {
			continue // made by change, not staged: keeps its mode
		}
		if err := os.Chmod(dirs[i], fi.Mode().Perm()); err != nil {
			return err
		}
	}
	return nil
}
