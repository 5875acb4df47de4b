package mcpproxy

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/acpsnap/acpsnap/internal/cassette/tool"
)

// Usage is the command line of `acpsnap mcp-cassette`, which the harness
// composes with Args and both the acpsnap command and acpsnaptest parse
// with ParseArgs.
const Usage = `usage: acpsnap mcp-cassette -mode record|replay -file FILE [-report FILE] [-cwd DIR -home DIR -root DIR] [-- COMMAND [ARG...]]

An MCP server on stdin and stdout that stands in front of the real one
(COMMAND), recording its initialize answer, tools/list and tools/call into
the tool cassette FILE (record), or answering them from FILE without
starting COMMAND (replay). -cwd, -home and -root are the run's folders,
stored as {{cwd}}, {{home}} and {{root}} and given today's values in
replay. The harness hands it to the agent in
session/new's mcpServers for every server input.json declares
(docs/cassettes.md).
`

// Command is the subcommand name the proxy's command line starts with.
const Command = "mcp-cassette"

// UsageError is a command line ParseArgs refuses.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Main is `acpsnap mcp-cassette ARGS…` (args: what follows the
// subcommand) on stdin and stdout, for the acpsnap command and for
// acpsnaptest's test binary alike: it returns the exit code, 0 when the
// cassette closed cleanly (or -h printed the usage), 1 when it did not (a
// mismatch, an extra or unconsumed call, an unfinished recording, a
// cassette that does not verify), 2 on a bad command line; what went wrong
// goes to stderr. ctx ends the proxy (the caller maps signals to it).
func Main(ctx context.Context, args []string, stdin io.ReadCloser, stdout io.WriteCloser, stderr io.Writer) int {
	cfg, err := ParseArgs(args, stderr)
	var ue *UsageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "acpsnap:", err)
		return 2
	}
	if err := Run(ctx, cfg, stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "acpsnap:", err)
		return 1
	}
	return 0
}

// Args is the command line (after the program) that runs the proxy for
// cfg: "mcp-cassette -mode M -file F [-report R] -- COMMAND ARGS…".
func Args(cfg Config) []string {
	args := []string{Command, "-mode", string(cfg.Mode), "-file", cfg.File}
	if cfg.Report != "" {
		args = append(args, "-report", cfg.Report)
	}
	for _, f := range [][2]string{{"-cwd", cfg.Cwd}, {"-home", cfg.Home}, {"-root", cfg.Root}} {
		if f[1] != "" {
			args = append(args, f[0], f[1])
		}
	}
	return append(append(args, "--"), cfg.Command...)
}

// ParseArgs parses the proxy's flags (the arguments after "mcp-cassette")
// into a Config; flag errors and usage go to stderr. It returns
// flag.ErrHelp for -h and a *UsageError for a command line Run cannot
// serve.
func ParseArgs(args []string, stderr io.Writer) (Config, error) {
	fs := flag.NewFlagSet("acpsnap "+Command, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { io.WriteString(fs.Output(), Usage); fs.PrintDefaults() }
	mode := fs.String("mode", "", "record or replay")
	file := fs.String("file", "", "the tool cassette")
	report := fs.String("report", "", "where to write the outcome as JSON (the harness reads it)")
	var cfg Config
	fs.StringVar(&cfg.Cwd, "cwd", "", "the run's cwd, stored as {{cwd}}")
	fs.StringVar(&cfg.Home, "home", "", "the run's HOME, stored as {{home}}")
	fs.StringVar(&cfg.Root, "root", "", "the run's private root, stored as {{root}}")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return Config{}, err
		}
		return Config{}, &UsageError{err.Error()}
	}
	cfg.Mode, cfg.File, cfg.Command, cfg.Report, cfg.Stderr = tool.Mode(*mode), *file, fs.Args(), *report, stderr
	switch {
	case cfg.Mode != tool.Record && cfg.Mode != tool.Replay:
		return cfg, usagef("-mode %q: want record or replay", *mode)
	case cfg.File == "":
		return cfg, usagef("-file is required")
	case cfg.Mode == tool.Record && len(cfg.Command) == 0:
		return cfg, usagef("record needs the real server's command after --")
	}
	return cfg, nil
}

func usagef(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(Command+": "+format+"\n%s", append(args, Usage)...)}
}
