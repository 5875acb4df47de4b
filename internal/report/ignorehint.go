package report

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// ignoreLine is the .gitignore line that keeps pending files out of git.
const ignoreLine = "*" + scenario.PendingSuffix

// IgnoreHint is the advice to add "*.new" to .gitignore, or "" when a
// .gitignore in dir or a folder above it (up to the repository's root, the
// folder holding .git) already has that line.
func IgnoreHint(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if hasLine(filepath.Join(d, ".gitignore"), ignoreLine) {
			return ""
		}
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil || filepath.Dir(d) == d {
			return "pending files are never committed: add the line " + ignoreLine + " to .gitignore"
		}
	}
}

// hasLine reports whether the file holds line (spaces around it ignored).
func hasLine(path, line string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == line {
			return true
		}
	}
	return false
}
