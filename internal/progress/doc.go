// Package progress shows how a run of many scenarios is going: on a
// terminal, one live line ("12/27 passed, 1 failed, 3 running…") rewritten in
// place with a carriage return and an erase-line sequence, so it never
// scrolls; elsewhere (a CI log, a pipe) nothing at all, and the caller's
// per-scenario lines tell the story as before.
//
// The happy path:
//
//	p := progress.New(progress.Config{Out: os.Stderr, Terminal: isTerminal, Total: len(scenarios)})
//	p.Start("text-turn")
//	...
//	p.Done("text-turn", progress.Passed, elapsed)
//	p.Print("FAIL cancel-mid-stream …\n") // above the live line, or plainly
//	p.Finish()
//	fmt.Print(progress.Slowest(p.Results(), 5))
//
// The caller decides Terminal (isatty on the output, TERM not "dumb"); the
// package never looks at the environment. A Tracker is safe for concurrent
// use by the goroutines running scenarios; each update writes the whole line
// in one Write.
package progress
