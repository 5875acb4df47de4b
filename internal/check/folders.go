package check

import (
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// Folders are a corpus as read once for one run: its acpsnap.yml, its
// pins, and its scenario folders (scenario.Load), by name. They are what
// Verify checks and what Check runs and compares with, so that the guards
// and the run of a corpus read each file once between them
// (docs/architecture.md).
type Folders struct {
	Root   string
	Corpus *scenario.Corpus // acpsnap.yml (the default without one)
	Names  []string         // the scenario folders, sorted (scenario.Corpus.Names)
	// Pins are the corpus's pins/, read as their values are needed: a pin
	// file never changes, so every scenario of the run reads through them.
	Pins *httplog.Pins

	scenarios map[string]*scenario.Scenario
}

// ReadFolders reads the corpus at root: the scenario folders keep returns
// true for (nil: every one; a folder not read here is read from disk each
// time it is needed). The error is for the corpus as a whole: its acpsnap.yml, or a
// root that cannot be listed; what fails in a scenario folder stays beside
// it in its scenario.Scenario.
func ReadFolders(root string, keep func(name string) bool) (*Folders, error) {
	f, v := readFolders(root, keep)
	if v != nil {
		return nil, v
	}
	return f, nil
}

// readFolders is ReadFolders with its failure as the guards report it.
func readFolders(root string, keep func(name string) bool) (*Folders, *folderError) {
	corpus, err := scenario.LoadCorpus(root)
	if err != nil {
		return nil, &folderError{Violation{filepath.Join(root, scenario.CorpusFile), err.Error()}}
	}
	names, err := corpus.Names(root)
	if err != nil {
		return nil, &folderError{Violation{root, err.Error()}}
	}
	f := &Folders{Root: root, Corpus: corpus, Names: names, scenarios: map[string]*scenario.Scenario{}}
	f.Pins = httplog.OpenPins(filepath.Join(root, scenario.PinsDir))
	for _, n := range names {
		if keep == nil || keep(n) {
			f.scenarios[n] = scenario.Load(filepath.Join(root, n))
		}
	}
	return f, nil
}

// folderError is a corpus ReadFolders cannot read, with the file or
// folder at fault.
type folderError struct{ v Violation }

func (e *folderError) Error() string { return e.v.Msg }

// load is the scenario folder dir as f read it, or as it reads now when f
// does not hold it (a staged copy is another folder of the same name).
func (f *Folders) load(dir string) *scenario.Scenario {
	if f != nil {
		if s := f.scenarios[filepath.Base(dir)]; s != nil && filepath.Clean(s.Dir) == filepath.Clean(dir) {
			return s
		}
	}
	return scenario.Load(dir)
}

// names are the scenario folders of the corpus at root: f's when it read
// that corpus, else listed now.
func (f *Folders) names(root string) ([]string, error) {
	if f != nil && filepath.Clean(f.Root) == filepath.Clean(root) {
		return f.Names, nil
	}
	return scenario.Names(root)
}
