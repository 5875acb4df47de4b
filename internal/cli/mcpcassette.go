package cli

import (
	"fmt"
	"os"

	"github.com/acpsnap/acpsnap/cassette/mcpproxy"
	"github.com/acpsnap/acpsnap/cassette/tool"
)

const mcpCassetteUsage = `usage: acpsnap mcp-cassette -mode record|replay -file FILE [-report FILE] [-- COMMAND [ARG...]]

An MCP server on stdin and stdout that stands in front of the real one
(COMMAND), recording its initialize answer, tools/list and tools/call into
the tool cassette FILE (record), or answering them from FILE without
starting COMMAND (replay). The harness hands it to the agent in
session/new's mcpServers for every server input.json declares
(docs/cassettes.md).
`

// mcpCassette runs the MCP proxy of package mcpproxy: exit 0 when the
// cassette closed cleanly, 1 when it did not (a mismatch, an extra or
// unconsumed call, an unfinished recording, a cassette that does not
// verify), 2 on a usage error.
func (e *env) mcpCassette(args []string) int {
	cfg, err := e.mcpCassetteConfig(args)
	if err != nil {
		return e.exit(err)
	}
	ctx, stop := interruptible()
	defer stop()
	if err := mcpproxy.Run(ctx, cfg, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(e.stderr, "acpsnap:", err)
		return ExitFailed
	}
	return ExitOK
}

func (e *env) mcpCassetteConfig(args []string) (mcpproxy.Config, error) {
	fs := e.flags("mcp-cassette")
	fs.Usage = func() { fs.Output().Write([]byte(mcpCassetteUsage)); fs.PrintDefaults() }
	mode := fs.String("mode", "", "record or replay")
	file := fs.String("file", "", "the tool cassette")
	report := fs.String("report", "", "where to write the outcome as JSON (the harness reads it)")
	if err := parse(fs, args); err != nil {
		return mcpproxy.Config{}, err
	}
	cfg := mcpproxy.Config{Mode: tool.Mode(*mode), File: *file, Command: fs.Args(), Report: *report, Stderr: e.stderr}
	switch {
	case cfg.Mode != tool.Record && cfg.Mode != tool.Replay:
		return cfg, usagef("mcp-cassette: -mode %q: want record or replay\n%s", *mode, mcpCassetteUsage)
	case cfg.File == "":
		return cfg, usagef("mcp-cassette: -file is required\n%s", mcpCassetteUsage)
	case cfg.Mode == tool.Record && len(cfg.Command) == 0:
		return cfg, usagef("mcp-cassette: record needs the real server's command after --\n%s", mcpCassetteUsage)
	}
	return cfg, nil
}

// acpsnapBinary is this program, which the harness runs as the MCP proxy
// (`acpsnap mcp-cassette`); "" when it cannot be located.
func acpsnapBinary() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}
