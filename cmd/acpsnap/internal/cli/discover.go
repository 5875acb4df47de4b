package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// defaultCorpus is the corpus a command without -dir works on, and the
// folder whose hints need no -dir.
const defaultCorpus = "snapshots"

// dirUsage is the usage of -dir in the commands that find the corpus.
const dirUsage = "the corpus `folder` (default: the current folder if it is a corpus, else ./" + defaultCorpus + ", else the only corpus below)"

// findCorpus is the corpus a command without -dir works on: the current
// folder if it is a corpus, else ./snapshots if it is one, else the only
// corpus below the current folder. Several (or none) below is a usage
// error that lists them.
func findCorpus() (string, error) {
	for _, d := range []string{".", defaultCorpus} {
		if isCorpus(d) {
			return d, nil
		}
	}
	found := corporaBelow(".")
	switch len(found) {
	case 0:
		return "", usagef("no corpus in or below the current folder (a folder of scenario folders, or one with %s); pass -dir", scenario.CorpusFile)
	case 1:
		return found[0], nil
	}
	return "", usagef("%d corpora below the current folder; choose one with -dir:\n  %s", len(found), strings.Join(found, "\n  "))
}

// isCorpus reports whether dir holds an acpsnap.yml or a scenario folder
// (a folder with a snapshot.yml).
func isCorpus(dir string) bool {
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
	return below(root, func(p string) bool { return p != root && isCorpus(p) })
}

// scenariosBelow lists every scenario folder under root (as accept and
// review without -dir see them), in walk order.
func scenariosBelow(root string) []string { return below(root, isScenario) }

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
