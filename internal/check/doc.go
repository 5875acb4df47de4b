// Package check checks a corpus of scenarios: Verify runs the guards over
// it without an agent; Run runs each scenario with the harness, normalizes
// both sides (each with its own context), compares them and, in the
// writing modes, writes the fixtures or, with Config.Pending, the
// <file>.new files `acpsnap review` acts on. The CLI (`acpsnap run`) and
// the go test entry point (acpsnaptest) are thin layers over Verify, Run
// and Check.
//
//	folders, err := check.ReadFolders("snapshots", nil) // each scenario folder, read once
//	for _, v := range check.Verify("snapshots", check.VerifyConfig{Folders: folders}) {
//		fmt.Println(v) // every violation, each with its path
//	}
//	outs, err := check.Run(ctx, check.RunConfig{Root: "snapshots",
//		Config: check.Config{Settings: harness.Settings{Agent: argv}, Folders: folders}})
//	passed, failed, skipped := check.Count(outs)
//
// Every run is checked against the rules of the Agent Client Protocol
// first (internal/conformance; a violation the corpus does not acknowledge
// fails it, Broken). Each Outcome says how the scenario ended (Passed,
// Failed, Skipped, Unrecorded), why, the readable -want +got diff
// (internal/textdiff, and internal/treediff for an expected workspace),
// the Mode that would accept it, what was written and which fixtures the
// run no longer produced; package report shows them (JUnit, HTML,
// the changes many failures share). The
// modes, what each writes, pins, the expected workspace, pending files and
// sharding are specified in docs/format.md ("Running", "Review",
// "Expected workspace", "Composed log", "Conformance"); docs/architecture.md follows one
// scenario through this package. Capture writes a real client's session
// with the agent (harness.Capture) as a scenario, through the same stage
// and replay as every write (docs/format.md, "Capture"). The CI write
// policy belongs to the front ends, which read the environment; package
// frontend decides it for both.
package check
