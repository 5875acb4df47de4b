// Package scenario is the scenario folder format and nothing else: the
// manifest (snapshot.yml), the corpus configuration (acpsnap.yml), the
// client script (input.json), the fixed file names and the committed
// fixture, read strictly. docs/format.md is the contract ("Scenario
// folder"); checking a corpus against it (the guards) and normalizing a
// fixture are package check's.
//
//	s := scenario.Load("snapshots/text-turn") // the folder, read once
//	if s.ManifestErr != nil {
//		return s.ManifestErr // "scenario: snapshots/text-turn/snapshot.yml:3: …"
//	}
//	fmt.Println(s.Manifest.Reason, len(s.Input.Steps), len(s.Fixture.Logs))
//
// Load is what a run passes down (check decides with it, the harness
// drives and replays from it), so a scenario's folder is read once per
// run. LoadCorpus reads a corpus's acpsnap.yml (the native defaults
// without one), Names the scenario folders of a corpus, sorted.
//
// Every loader is strict: unknown keys, duplicate JSON keys and values of
// the wrong type are errors that carry the file, the line and, for JSON,
// the path ("input.json:7: $.steps[3].op: unknown op \"promt\"").
package scenario
