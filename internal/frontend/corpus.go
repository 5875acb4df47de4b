package frontend

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// DefaultCorpus is the corpus FindCorpus looks for after the current
// folder, and where a corpus starts when there is none (new, init).
const DefaultCorpus = "snapshots"

// DirUsage is the usage of a -dir flag whose default FindCorpus finds.
const DirUsage = "the corpus `folder` (default: the current folder if it is a corpus, else ./" + DefaultCorpus + ", else the only corpus below)"

// ErrNoCorpus is wrapped by FindCorpus's error when no corpus is in or
// below the current folder.
var ErrNoCorpus = errors.New("no corpus in or below the current folder")

// FindCorpus is the corpus a command works on: dir when it is named,
// else the current folder if it is a corpus, else ./snapshots if it is
// one, else the only corpus below the current folder. None, or several,
// below is an error that says to name one with name ("-dir",
// "Params.Dir").
func FindCorpus(dir, name string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	for _, d := range []string{".", DefaultCorpus} {
		if IsCorpus(d) {
			return d, nil
		}
	}
	found := corporaBelow(".")
	switch len(found) {
	case 0:
		return "", fmt.Errorf("%w (a folder of scenario folders, or one with %s); name one with %s", ErrNoCorpus, scenario.CorpusFile, name)
	case 1:
		return found[0], nil
	}
	return "", fmt.Errorf("%d corpora below the current folder; choose one with %s:\n  %s", len(found), name, strings.Join(found, "\n  "))
}

// IsCorpus reports whether dir holds an acpsnap.yml or a scenario folder
// (a folder with a snapshot.yml).
func IsCorpus(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, scenario.CorpusFile)); err == nil {
		return true
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if e.IsDir() && isScenario(filepath.Join(dir, e.Name())) {
			return true
		}
	}
	return false
}

func isScenario(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, scenario.ManifestFile))
	return err == nil
}

// skipped are folders never searched: hidden ones (.git, .cache) and the
// package folders of other tools.
func skipped(name string) bool {
	return strings.HasPrefix(name, ".") && name != "." || name == "node_modules" || name == "vendor"
}

// corporaBelow lists the corpora under root, in walk order; the folders
// of a corpus are not searched further.
func corporaBelow(root string) []string {
	return below(root, func(p string) bool { return p != root && IsCorpus(p) })
}

// ScenariosBelow lists every scenario folder under root (as accept and
// review without -dir see them), in walk order.
func ScenariosBelow(root string) []string { return below(root, isScenario) }

// below lists the folders under root (root included) that match, in walk
// order, without searching a match's folders or skipped ones.
func below(root string, match func(string) bool) []string {
	var out []string
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil || !d.IsDir():
			return nil
		case skipped(d.Name()):
			return filepath.SkipDir
		case match(p):
			out = append(out, p)
			return filepath.SkipDir
		}
		return nil
	})
	return out
}
