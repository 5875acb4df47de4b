package scenario

import "path/filepath"

// Scenario is one scenario folder as it was read, once, for one run: the
// manifest, the client script and the committed fixture. Whoever needs a
// part asks this value rather than the folder (package check decides with
// it, the harness drives and replays from it), so a run reads each file
// once. A part that did not load keeps its error beside it, for the step
// that needs the part to report.
type Scenario struct {
	Dir string // the folder, as given to Load

	Manifest    *Manifest // snapshot.yml; nil: ManifestErr
	ManifestErr error

	Input    *Input // input.json; nil: InputErr
	InputErr error

	// Fixture is stdout.expected.jsonl and the session logs; nil:
	// FixtureErr (it wraps fs.ErrNotExist for a scenario not recorded yet).
	Fixture    *Fixture
	FixtureErr error
}

// Load reads the scenario folder dir: its manifest, its client script and
// its committed fixture, each with the strict loader of its format
// (LoadManifest, LoadInput, ReadFixture).
func Load(dir string) *Scenario {
	s := &Scenario{Dir: dir}
	s.Manifest, s.ManifestErr = LoadManifest(filepath.Join(dir, ManifestFile))
	s.Input, s.InputErr = LoadInput(filepath.Join(dir, InputFile))
	s.Fixture, s.FixtureErr = ReadFixture(dir)
	return s
}
