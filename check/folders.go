package check

import (
	"path/filepath"

	"github.com/acpsnap/acpsnap/scenario"
)

// Folders are the scenario folders of a corpus, each read once
// (scenario.Load), by name: what Verify checks and what Check runs and
// compares with, so that the guards and the run of a corpus read each
// folder once between them (docs/architecture.md).
type Folders map[string]*scenario.Scenario

// ReadFolders reads every scenario folder of the corpus at root.
func ReadFolders(root string) (Folders, error) {
	names, err := scenario.Names(root)
	if err != nil {
		return nil, err
	}
	f := Folders{}
	for _, n := range names {
		f[n] = scenario.Load(filepath.Join(root, n))
	}
	return f, nil
}

// load is the scenario folder dir as f read it, or as it reads now when f
// does not hold it (a staged copy is another folder of the same name).
func (f Folders) load(dir string) *scenario.Scenario {
	if s := f[filepath.Base(dir)]; s != nil && filepath.Clean(s.Dir) == filepath.Clean(dir) {
		return s
	}
	return scenario.Load(dir)
}
