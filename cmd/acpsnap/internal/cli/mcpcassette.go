package cli

import (
	"os"

	"github.com/acpsnap/acpsnap/internal/mcpproxy"
)

// mcpCassette runs the MCP proxy of package mcpproxy, whose exit codes
// are the command's: 0 when the cassette closed cleanly, 1 when it did
// not, 2 on a usage error.
func (e *env) mcpCassette(args []string) int {
	ctx, stop := interruptible()
	defer stop()
	return mcpproxy.Main(ctx, args, os.Stdin, os.Stdout, e.stderr)
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
