package acpsnaptest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/acpsnap/acpsnap/cassette/mcpproxy"
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

// serveMCP runs `mcp-cassette ARGS…` on stdin and stdout: exit 0 when the
// cassette closed cleanly, 1 when it did not, 2 on a bad command line, as
// `acpsnap mcp-cassette` does.
func serveMCP(args []string) int {
	if len(args) == 0 || args[0] != mcpproxy.Command {
		fmt.Fprintf(os.Stderr, "acpsnaptest: the MCP proxy wants %q first, got %q\n", mcpproxy.Command, args)
		return 2
	}
	cfg, err := mcpproxy.ParseArgs(args[1:], os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		fmt.Fprintln(os.Stderr, "acpsnaptest:", err)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	if err := mcpproxy.Run(ctx, cfg, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "acpsnaptest:", err)
		return 1
	}
	return 0
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
