// Package acp snapshot-tests a small ACP agent written in Python, the way
// an agent's own repository does it: acpsnap.yml in each corpus says which
// agent to run, and one go test function checks each corpus.
package acp

import (
	"testing"

	"github.com/acpsnap/acpsnap/acpsnaptest"
)

// TestNative checks native/: the agent writes acpsnap's session log itself
// and replays its model from the fixture (docs/agents.md).
func TestNative(t *testing.T) {
	acpsnaptest.Run(t, acpsnaptest.Params{Dir: "native"})
}
