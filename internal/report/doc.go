// Package report shows what an agent did in a scenario: one model of
// the conversation (Transcript: turns with their prompt, the agent's
// merged message and thoughts, tool calls, permissions and their answers,
// plans, mode changes, errors, stop reasons, subagents under their call,
// and the model calls behind them), built from a scenario's normalized
// fixtures or from what a failed run produced, and two printers of it.
//
//	t, err := report.Load("snapshots/text-turn")
//	err = report.WriteText(os.Stdout, t, report.TextConfig{Color: onTerminal})
//
// WriteText is the terminal view of `acpsnap show`; WriteHTML writes a
// corpus run (NewPage, from check outcomes) as one self-contained HTML
// page, the report of `acpsnap run -html` and of acpsnaptest's
// ACPSNAP_HTML. What each view shows is in docs/format.md, "Transcripts".
//
// The package never prints on its own and reads no environment; colour
// and width are the caller's (TextConfig).
package report
