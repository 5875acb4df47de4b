// Package cli is the acpsnap command line: it parses flags, reads the
// environment, calls the library packages and maps errors to exit codes.
// cmd/acpsnap and the test binaries that re-execute themselves as the agent
// share it.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/frontend"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/sandbox"
	"github.com/acpsnap/acpsnap/internal/secrets"
)

// Exit codes (docs/format.md, "Command line").
const (
	ExitOK       = 0 // every scenario passed
	ExitFailed   = 1 // a scenario failed, or a key would have been written or shown
	ExitUsage    = 2 // usage or fixture error
	ExitInternal = 3 // internal error
)

// usageError is a bad command line or a bad fixture: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// env is what the commands read from the process environment; tests swap it.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
	environ        []string
	// sandbox is -offline's namespace this process runs in; nil: none.
	sandbox *sandbox.Sandbox
}

// offlineSettings are what -offline's namespace changes in the harness's
// settings: each agent and terminal in a user namespace of its own, and
// with a live model (record), the model proxy reaching it through the way
// out (a scripted model is inside the namespace).
func (e *env) offlineSettings(s *harness.Settings, liveModel bool) {
	if e.sandbox == nil {
		return
	}
	s.OwnUserNS = true
	if liveModel {
		s.UpstreamDial = e.sandbox.Dial
	}
}

const usage = `usage: acpsnap <command> [flags]

commands:
  run      replay the corpus and compare (default -dir snapshots)
  update   replay; accept stdout changes (stdout.expected.jsonl)
  refresh  replay; accept stdout and session-log changes
  record   re-record recording: live scenarios against the live model
  verify   check the corpus guards without running agents
  pins     prune the pin files no scenario names, or migrate a corpus's pins (acpsnap pins -h)
  review   walk the pending files (-pending) one at a time: accept, reject, skip
  accept   accept every pending file (-run to choose scenarios)
  reject   remove every pending file (-run to choose scenarios)
  show     print a scenario's transcript from its fixtures (show [-dir D] NAME)
  report   merge reports into one HTML report (report merge -o FILE REPORT...)
  new      scaffold a scenario (with -model FILE: author it, FILE kept as model.json)
  capture  be the agent to an ACP client (acpx, Zed) and write its session as a scenario
  init     start a corpus for an agent: acpsnap.yml and a first text-turn scenario
  probe    run each scenario N times offline and report what makes the agent nondeterministic
  agent    run the reference ACP agent on stdin/stdout
  serve-model  serve a model file (as new -model reads) on 127.0.0.1 in -dialect D
  cassette verify, inspect or diff a cassette (acpsnap cassette -h)
  mcp-cassette  an MCP server that records or replays a real one (the harness runs it)

Run 'acpsnap <command> -h' for the flags of a command.
`

// Main runs the command line args (without the program name) and returns
// the exit code.
func Main(args []string) int {
	e := &env{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv, environ: os.Environ()}
	limitMemory(e.getenv)
	return e.main(args)
}

func (e *env) main(args []string) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return ExitUsage
	}
	if b, _ := frontend.ReadBazel(e.getenv); len(b.Runfiles) > 0 {
		safefile.Trust(b.Runfiles...) // a corpus given as Bazel data is links
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run", "update", "refresh", "record":
		return e.run(cmd, rest)
	case "verify":
		err = e.verify(rest)
	case "pins":
		err = e.pinsCmd(rest)
	case "review":
		err = e.review(rest)
	case "accept", "reject":
		err = e.settle(cmd, rest)
	case "show":
		err = e.show(rest)
	case "report":
		return e.reportCmd(rest)
	case "new":
		return e.newScenario(rest)
	case "capture":
		return e.capture(rest)
	case "init":
		err = e.initCorpus(rest)
	case "probe":
		return e.probeCmd(rest)
	case "agent":
		err = e.agent(rest)
	case "serve-model":
		return e.serveModel(rest)
	case "cassette":
		return e.cassetteCmd(rest)
	case "mcp-cassette":
		return e.mcpCassette(rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.stdout, usage)
		return ExitOK
	default:
		err = usagef("unknown command %q\n%s", cmd, usage)
	}
	return e.exit(err)
}

// exit prints err and maps it to an exit code.
func (e *env) exit(err error) int {
	if err == nil {
		return ExitOK
	}
	var ue *usageError
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK // -h: the flags were printed, as asked
	}
	fmt.Fprintln(e.stderr, "acpsnap:", console.Text(err.Error())) // it may name a file or folder a pull request chose
	if errors.As(err, &ue) {
		return ExitUsage
	}
	if le := (*secrets.LeakError)(nil); errors.As(err, &le) {
		return ExitFailed // a report or show refused to carry a key
	}
	if fe := (*failedError)(nil); errors.As(err, &fe) {
		return ExitFailed // an accept refused: what it would install does not replay
	}
	return ExitInternal
}

func (e *env) flags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("acpsnap "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	return fs
}

// parse parses args and turns flag errors into usage errors.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return &usageError{err.Error()}
	}
	return nil
}
