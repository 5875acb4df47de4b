package check

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/secrets"
)

// The bounds of a captured folder (workspace/, workspace.expected/): a
// scenario's seed is committed with it and copied into every run.
const (
	captureMaxFiles = 2000
	captureMaxBytes = 32 << 20
)

// captureTree is the client's folder as a capture copies it: bounded, its
// links inside it, without what is not the project's (.git, whose
// repository cannot live inside another one's; .env, where keys live; the
// corpus the capture writes, when it is inside the folder; a write's
// leftovers), and without a secret value in any file.
type captureTree struct {
	cwd      string
	corpus   string // the corpus root, relative to cwd ("" when outside it)
	maxFiles int
	maxBytes int64
}

func newCaptureTree(cwd, corpus string, maxFiles int, maxBytes int64) captureTree {
	t := captureTree{cwd: cwd, maxFiles: maxFiles, maxBytes: maxBytes}
	if t.maxFiles == 0 {
		t.maxFiles = captureMaxFiles
	}
	if t.maxBytes == 0 {
		t.maxBytes = captureMaxBytes
	}
	if abs, err := filepath.Abs(corpus); err == nil {
		if rel, err := filepath.Rel(cwd, abs); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") {
			t.corpus = filepath.ToSlash(rel)
		}
	}
	return t
}

// skip reports whether the entry at rel is left out.
func (t captureTree) skip(rel string) bool {
	base := rel[strings.LastIndex(rel, "/")+1:]
	return base == ".git" || base == ".env" || safefile.IsLeftover(base) || t.corpus != "" && rel == t.corpus
}

// check walks the folder once and refuses it, before anything is copied,
// when it holds more than the bounds, a link that leads out of it, or
// anything but files, folders and links.
func (t captureTree) check() error {
	files, bytes := 0, int64(0)
	err := filepath.WalkDir(t.cwd, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(t.cwd, p)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if t.skip(rel) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch m := info.Mode(); {
		case m.IsDir():
			return nil
		case m&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			if safefile.Escapes(rel, target) {
				return fmt.Errorf("%s is a link to %s, outside the folder: a scenario's workspace holds only links inside it (remove the link, or leave the folder out with -no-workspace)", rel, target)
			}
		case !m.IsRegular():
			return fmt.Errorf("%s is a %s: a scenario's workspace holds only files, folders and links (leave the folder out with -no-workspace)", rel, safefile.Kind(m))
		default:
			bytes += info.Size()
		}
		if files++; files > t.maxFiles {
			return fmt.Errorf("it holds more than %d files: too many for a scenario's workspace (capture from a smaller folder, or leave it out with -no-workspace)", t.maxFiles)
		}
		if bytes > t.maxBytes {
			return fmt.Errorf("its files hold more than %d MiB: too much for a scenario's workspace (capture from a smaller folder, or leave it out with -no-workspace)", t.maxBytes>>20)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("check: capture: the folder %s: %w", t.cwd, err)
	}
	return nil
}

// copy checks the folder, then copies it into the new folder dst (modes
// and links kept), each file through transform when it is not nil, and
// refuses a copy in which a file holds a value of leaks.
func (t captureTree) copy(dst string, transform func(rel string, data []byte) []byte, leaks *secrets.Set) error {
	if err := t.check(); err != nil {
		return err
	}
	if err := os.Mkdir(dst, 0o755); err != nil {
		return fmt.Errorf("check: capture: %w", err)
	}
	cfg := safefile.TreeConfig{MaxFileBytes: scenario.MaxFileBytes, Confine: true, SkipPath: t.skip, Transform: transform}
	if err := safefile.CopyTree(t.cwd, dst, cfg); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("check: capture: copy the folder %s: %w", t.cwd, err)
	}
	return scanTree(dst, t.cwd, leaks)
}

// scanTree refuses a copied tree (of the folder cwd) in which a file holds
// a value of leaks; the error names the file and the variable.
func scanTree(root, cwd string, leaks *secrets.Set) error {
	if leaks.Len() == 0 {
		return nil
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if err := leaks.Check(filepath.Join(cwd, rel), b); err != nil {
			return fmt.Errorf("check: capture: %w; a scenario's workspace must not hold it (remove it from the folder, or leave the folder out with -no-workspace)", err)
		}
		return nil
	})
}
