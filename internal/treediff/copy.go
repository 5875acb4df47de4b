package treediff

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/safefile"
)

// Copy writes the src tree to dst, replacing what dst held: file contents
// and link targets through cfg.Normalize, modes kept, links copied as links
// (see the package documentation for what is refused). dst's parent must
// exist.
func Copy(src, dst string, cfg Config) error {
	if err := checkRoots(src, dst); err != nil {
		return fmt.Errorf("treediff: copy: %w", err)
	}
	parent, base := filepath.Dir(dst), filepath.Base(dst)
	tmp, err := os.MkdirTemp(parent, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("treediff: copy: %w", err)
	}
	if err := fill(src, tmp, cfg); err != nil {
		safefile.RemoveAll(tmp)
		return fmt.Errorf("treediff: copy: %w", err)
	}
	if err := swap(tmp, dst); err != nil {
		safefile.RemoveAll(tmp)
		return fmt.Errorf("treediff: copy: %w", err)
	}
	return nil
}

// checkRoots refuses a src that is not a real directory and a dst inside it.
func checkRoots(src, dst string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", src)
	}
	as, err := filepath.Abs(src)
	if err != nil {
		return err
	}
	ad, err := filepath.Abs(dst)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(as, ad); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return fmt.Errorf("%s is inside %s", dst, src)
	}
	return nil
}

// fill copies the tree src into the empty directory tmp, then gives tmp
// src's mode.
func fill(src, tmp string, cfg Config) error {
	tc := safefile.TreeConfig{MaxFileBytes: cfg.MaxFileBytes, Transform: cfg.Normalize, Confine: true}
	if err := safefile.CopyTree(src, tmp, tc); err != nil {
		return err
	}
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	return os.Chmod(tmp, fi.Mode().Perm())
}

// swap puts the directory tmp in dst's place and removes the old dst.
func swap(tmp, dst string) error {
	fi, err := os.Lstat(dst)
	if os.IsNotExist(err) {
		return os.Rename(tmp, dst)
	}
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s: not a directory", dst)
	}
	old, err := os.MkdirTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".old-*")
	if err != nil {
		return err
	}
	os.Remove(old) // only its unique name is wanted
	if err := os.Rename(dst, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, dst); err != nil {
		os.Rename(old, dst)
		return err
	}
	return safefile.RemoveAll(old)
}
