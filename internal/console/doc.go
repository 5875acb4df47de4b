// Package console is what acpsnap shows on a terminal, and how it keeps an
// agent's text from changing it.
//
// Text from an agent is made safe to print first. Text and Line turn
// control characters, invalid UTF-8 and the characters that show as
// nothing into visible Go-style escapes. Nothing an agent prints can then
// rewrite or hide a line of acpsnap's own output:
//
//	console.Line("ok\x1b[2K\rFAIL") == `ok\x1b[2K\rFAIL`
//
// Tabs are kept, and so are the two invisible characters emoji are made
// of: a zero-width joiner between two symbols and one presentation
// selector after a character. Line escapes "\n" too; Text keeps it.
//
// The command line asks a terminal three questions: is this file one, how
// wide is it, and can keys be read as they are typed (acpsnap review):
//
//	if console.IsTerminal(os.Stdout) && os.Getenv("NO_COLOR") == "" { … }
//	cols := console.Width(os.Stdout) // 0: not a terminal
//	restore := console.KeyMode(os.Stdin)
//	defer restore()
//
// On Linux these use the termios ioctls of package syscall. Elsewhere
// IsTerminal reports a character device, and KeyMode leaves the terminal
// in line mode.
//
// A run of many scenarios shows its progress on a terminal as one live
// line, rewritten in place so it never scrolls. Elsewhere, in a CI log or
// a pipe, the Tracker writes nothing, and the caller's lines tell the
// story:
//
//	p := console.NewProgress(console.ProgressConfig{Out: os.Stderr, Terminal: isTerminal, Total: len(scenarios)})
//	p.Start("text-turn")
//	p.Done("text-turn", console.Passed, elapsed)
//	p.Print("FAIL cancel-mid-stream …\n") // above the live line, or plainly
//	p.Finish()
//	fmt.Print(console.Slowest(p.Results(), 5))
//
// The caller decides Terminal; the package never reads the environment. A
// Tracker is safe for concurrent use, and each update is one Write.
package console
