package safefile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
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
// and the hidden folder that holds it is held (a lease): a run
// killed before or after the exchange leaves it, and the next Publish or
// Sweep of dir removes it. Leftovers of Write and of the old two-step
// copies inside dir (IsLeftover) are not staged, so publishing removes
// them too.
func Publish(dir string, change func(stage string) error) error {
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	prefix := "." + base + ".publish-"
	if _, err := Reap(parent, prefix); err != nil {
		return fmt.Errorf("safefile: publish %s: %w", dir, err)
	}
	l, err := LeaseDir(parent, prefix)
	if err != nil {
		return fmt.Errorf("safefile: publish %s: %w", dir, err)
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
		return fmt.Errorf("safefile: published %s, but could not remove the old tree %s: %w", dir, stage, rerr)
	}
	return nil
}

// Sweep removes the leftovers of writes to the folder dir that never
// finished: the stages of a killed Publish beside it (when their holder is
// gone) and the IsLeftover entries directly inside it. It returns what it
// removed.
func Sweep(dir string) ([]string, error) {
	removed, err := Reap(filepath.Dir(dir), "."+filepath.Base(dir)+".publish-")
	if err != nil {
		return removed, fmt.Errorf("safefile: %w", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return removed, fmt.Errorf("safefile: %w", err)
	}
	for _, e := range entries {
		if !IsLeftover(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.RemoveAll(p); err != nil {
			return removed, fmt.Errorf("safefile: remove the leftover %s: %w", p, err)
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

// linkTree fills the empty folder stage with dir's tree
// (CopyTree): folders with their modes, files hard-linked (copied
// where links are refused), symbolic links recreated. Leftovers are
// skipped; anything else (a FIFO, a device) is refused.
func linkTree(dir, stage string) error {
	err := CopyTree(dir, stage, TreeConfig{Link: true, Skip: IsLeftover, MaxFileBytes: maxStagedCopy})
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(dir); err == nil {
			err = os.Chmod(stage, fi.Mode().Perm())
		}
	}
	if err != nil {
		return fmt.Errorf("safefile: publish %s: stage: %w", dir, err)
	}
	return nil
}

// maxStagedCopy caps a file staged by copy where it cannot be linked: the
// fixtures' own cap (256 MiB).
const maxStagedCopy = 256 << 20
