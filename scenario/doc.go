// Package scenario is the scenario folder format: the manifest
// (snapshot.yml), the corpus configuration (acpsnap.yml), the client script
// (input.json), the fixed file names, the committed fixture and its
// fixture-side normalization, and the guards that check a corpus without
// running an agent. docs/format.md is the contract (the files in
// "Scenario folder", the guards in "Guards"); this package is its code.
//
//	m, err := scenario.LoadManifest("snapshots/text-turn/snapshot.yml")
//	in, err := scenario.LoadInput("snapshots/text-turn/input.json")
//	for _, v := range scenario.Verify("snapshots", scenario.VerifyConfig{}) {
//		fmt.Println(v) // every violation, each with its path
//	}
//
// LoadCorpus reads a corpus's acpsnap.yml (the native defaults without
// one), ReadFixture a scenario's committed files, and Names the
// scenario folders of a corpus, sorted.
//
// Every loader is strict: unknown keys, duplicate JSON keys and values of
// the wrong type are errors that carry the file, the line and, for JSON,
// the path ("input.json:7: $.steps[3].op: unknown op \"promt\"").
package scenario
