package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// maxLinks bounds the links followed while resolving one path (as the
// kernel's ELOOP limit does).
const maxLinks = 40

// Resolve returns the clean absolute path abs with every symbolic link
// followed component by component. A link is followed even when its target
// does not exist (opening the path for writing would create the target);
// components that do not exist are kept as written.
func Resolve(abs string) (string, error) {
	if !filepath.IsAbs(abs) {
		return "", errors.New("safefile: not an absolute path: " + abs)
	}
	parts := split(abs)
	cur, links := string(filepath.Separator), 0
	for len(parts) > 0 {
		p := parts[0]
		parts = parts[1:]
		next := filepath.Join(cur, p)
		fi, err := os.Lstat(next)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		if links++; links > maxLinks {
			return "", errors.New("safefile: too many symbolic links in " + abs)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(cur, target)
		}
		parts = append(split(target), parts...)
		cur = string(filepath.Separator)
	}
	return cur, nil
}

// split returns the components of a cleaned absolute path.
func split(abs string) []string {
	abs = strings.Trim(filepath.Clean(abs), string(filepath.Separator))
	if abs == "" {
		return nil
	}
	return strings.Split(abs, string(filepath.Separator))
}

// Within reports whether the clean absolute path abs is root or lies below
// it, lexically.
func Within(root, abs string) bool {
	rel, err := filepath.Rel(root, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Confined reports whether abs stays inside root both as written and with
// all symbolic links of both followed (dangling ones included).
func Confined(root, abs string) bool {
	if !Within(root, abs) {
		return false
	}
	rr, err1 := Resolve(root)
	ra, err2 := Resolve(abs)
	return err1 == nil && err2 == nil && Within(rr, ra)
}

// RemoveAll removes the tree at root as os.RemoveAll does, read-only
// folders included (it makes each folder writable first).
func RemoveAll(root string) error {
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(root)
}
