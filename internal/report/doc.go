// Package report is everything a run of a corpus shows besides its exit
// code: the transcript of a scenario, the HTML report, the JUnit XML
// report, and the hints printed beside failures. Both front ends (acpsnap
// run and acpsnaptest) print with it; check decides, report shows.
//
// A Transcript is one model of the conversation of a scenario: turns with
// their prompt, the agent's merged message and thoughts, tool calls,
// permissions, plans, mode changes, errors, stop reasons, subagents under
// their call, and the model calls behind them. It is built from a
// scenario's normalized fixtures or from what a failed run produced:
//
//	t, err := report.Load("snapshots/text-turn")
//	err = report.WriteText(os.Stdout, t, report.TextConfig{Color: onTerminal})
//
// WriteText is the terminal view of `acpsnap show`. WriteHTML writes a
// corpus run (NewPage, from check outcomes) as one self-contained HTML
// page: the report of `acpsnap run -html` and of acpsnaptest's
// ACPSNAP_HTML. JUnit writes the outcomes of one or more corpora as JUnit
// XML, as CI systems read it (testdata/junit.xsd says which shape).
//
// Changes and PinChanges group the failures that show one change, so a
// change many scenarios share is shown once, with the commands that
// accept it for all of them. IgnoreHint is the advice to keep pending
// files out of git.
//
// What each view shows is in docs/format.md ("Transcripts") and
// docs/ci.md. The package never prints on its own and reads no
// environment; colour and width are the caller's.
package report
