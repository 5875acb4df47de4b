package snapshots_test

import (
	"os"
	"testing"

	"github.com/acpsnap/acpsnap/acpsnaptest"
	"github.com/acpsnap/acpsnap/agent/launch"
)

// agentCommand is the reference agent: this test binary, served as the
// command acpsnap-agent by acpsnaptest.Main, so the suite depends on no
// binary built beforehand.
var agentCommand = []string{"acpsnap-agent"}

// TestMain serves the reference agent (acpsnaptest serves the MCP proxy of
// the scenarios that declare MCP servers itself, as it does in a user's
// module).
func TestMain(m *testing.M) {
	acpsnaptest.Main(m, map[string]func() int{agentCommand[0]: launch.Command})
}

// TestSnapshots checks the bundled corpus the way a user checks theirs:
// the guards, then one parallel subtest per scenario folder.
func TestSnapshots(t *testing.T) {
	acpsnaptest.Run(t, acpsnaptest.Params{
		Dir:           ".",
		Agent:         agentCommand,
		RecordSecrets: func() (map[string]string, error) { return launch.LiveSecrets(os.Getenv, "../.env") },
		ScriptedEnv:   launch.ScriptedEnv,
	})
}
