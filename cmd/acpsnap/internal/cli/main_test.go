package cli

import (
	"os"
	"testing"
)

// TestMain lets the test binary be acpsnap: started as "<test binary>
// agent …" (or mcp-cassette, the MCP proxy a corpus run starts) it runs
// the command line and exits, so the tests can drive the real
// subcommands in a subprocess (the testscript.Main pattern).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && (os.Args[1] == "agent" || os.Args[1] == "mcp-cassette" || os.Args[1] == "capture") {
		os.Exit(Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}
