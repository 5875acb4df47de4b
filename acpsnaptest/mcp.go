package acpsnaptest

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/acpsnap/acpsnap/internal/mcpproxy"
)

// mcpCommand is the value of commandEnv under which the test binary serves
// as the MCP proxy of a scenario's MCP servers (`acpsnap mcp-cassette`), so
// a user's module needs no acpsnap binary for MCP scenarios.
const mcpCommand = "acpsnaptest:" + mcpproxy.Command

// init serves the MCP proxy before any test (or the user's TestMain) runs:
// the harness starts it through the wrapper MCPProxy wrote, which may be
// the first thing the test binary is asked to do, with or without Main.
func init() {
	if os.Getenv(commandEnv) != mcpCommand {
		return
	}
	os.Unsetenv(commandEnv)
	os.Unsetenv("GORACE")
	os.Exit(serveMCP(os.Args[1:]))
}

// serveMCP runs `mcp-cassette ARGS…` on stdin and stdout, as `acpsnap
// mcp-cassette` does (mcpproxy.Main says the exit codes).
func serveMCP(args []string) int {
	if len(args) == 0 || args[0] != mcpproxy.Command {
		fmt.Fprintf(os.Stderr, "acpsnaptest: the MCP proxy wants %q first, got %q\n", mcpproxy.Command, args)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return mcpproxy.Main(ctx, args[1:], os.Stdin, os.Stdout, os.Stderr)
}

// MCPProxy writes, into a folder removed when t ends, the program the
// harness runs as the MCP proxy of a scenario's MCP servers
// (check.Config.Acpsnap): a script that re-executes this test binary as
// the proxy. Run uses it; a test that calls package check directly sets
// check.Config.Acpsnap to it.
func MCPProxy(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := writeWrapper(dir, "acpsnap", mcpCommand); err != nil {
		t.Fatalf("acpsnaptest: the MCP proxy: %v", err)
	}
	return filepath.Join(dir, "acpsnap")
}
