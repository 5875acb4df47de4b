package cli

import (
	"os"
	"testing"
)

// TestMain lets the test binary be acpsnap: started as "<test binary>
// agent …" it runs the command line and exits, so the tests can drive the
// real agent subcommand in a subprocess (the testscript.Main pattern).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "agent" {
		os.Exit(Main(os.Args[1:]))
	}
	os.Exit(m.Run())
}
