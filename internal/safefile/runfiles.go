package safefile

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
)

// runfiles holds the runfiles trees whose links are read through (Trust).
var runfiles atomic.Pointer[[]string]

// Trust names the runfiles trees of a Bazel test (RUNFILES_DIR,
// TEST_SRCDIR): a symbolic link under one of them that Bazel made is read
// as the file it mirrors (Mirrored), everywhere this package reads or
// walks. Only the front ends call it, once, from the variables Bazel sets;
// nil or none: every link is refused, as without Bazel.
func Trust(roots ...string) {
	var all []string
	for _, r := range roots {
		if r == "" || !filepath.IsAbs(r) {
			continue
		}
		all = append(all, filepath.Clean(r))
		if real, err := filepath.EvalSymlinks(r); err == nil && real != filepath.Clean(r) {
			all = append(all, real)
		}
	}
	runfiles.Store(&all)
}

// Mirrored returns the file a symbolic link of a trusted runfiles tree
// stands for, and whether path is such a link. Bazel hands a test its data
// as links: root/REPO/REL leads, through the execution root, to a file
// whose path ends in REL, the path it has in the workspace. A link whose
// chain ends anywhere else (a link committed in the workspace, to a
// credential or to another fixture), or a path outside every trusted
// tree, is not mirrored: it stays refused.
func Mirrored(path string) (string, bool) {
	roots := runfiles.Load()
	if roots == nil || len(*roots) == 0 {
		return "", false
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false
	}
	for _, root := range *roots {
		rel, err := filepath.Rel(root, abs)
		if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue
		}
		_, inRepo, ok := strings.Cut(rel, string(filepath.Separator)) // below the repository's folder
		if !ok {
			return "", false
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil || real == abs || !strings.HasSuffix(real, string(filepath.Separator)+inRepo) {
			return "", false
		}
		return real, true
	}
	return "", false
}

// Info is the FileInfo of the entry d at path p of a walk, without
// following links, except for a link Bazel made (Mirrored): that one
// stands for the file it mirrors.
func Info(p string, d fs.DirEntry) (fs.FileInfo, error) {
	if d.Type()&fs.ModeSymlink != 0 {
		if real, ok := Mirrored(p); ok {
			return os.Lstat(real)
		}
	}
	return d.Info()
}
