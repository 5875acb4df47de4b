// Package acp snapshot-tests two small ACP agents written in Python, the way
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

// TestHTTP checks http/: the agent is unchanged (it writes no log and
// knows nothing of acpsnap); acpsnap stands between it and its model as
// an HTTP proxy (model.dialect in acpsnap.yml) and composes the session log.
func TestHTTP(t *testing.T) {
	acpsnaptest.Run(t, acpsnaptest.Params{Dir: "http"})
}
