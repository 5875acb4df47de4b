package acpsnaptest_test

import (
	"os"
	"testing"

	"github.com/acpsnap/acpsnap/acpsnaptest"
	"github.com/acpsnap/acpsnap/internal/fakeagent"
)

// TestMain serves the test binary as example-agent, the agent that
// testdata/example/acpsnap.yml names: a small scripted ACP agent that
// writes its session log.
func TestMain(m *testing.M) {
	acpsnaptest.Main(m, map[string]func() int{"example-agent": func() int {
		return fakeagent.Run(fakeagent.Script{}, os.Stdin, os.Stdout, os.Stderr)
	}})
}

// TestExample checks the example corpus as a user's test function does.
func TestExample(t *testing.T) {
	acpsnaptest.Run(t, acpsnaptest.Params{Dir: "testdata/example"})
}
