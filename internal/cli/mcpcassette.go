package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/acpsnap/acpsnap/cassette/mcpproxy"
)

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
	cfg, err := mcpproxy.ParseArgs(args, e.stderr)
	var ue *mcpproxy.UsageError
	if errors.As(err, &ue) {
		return cfg, &usageError{ue.Msg}
	}
	return cfg, err
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
