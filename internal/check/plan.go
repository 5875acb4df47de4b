package check

import (
	"os"
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// plan is what Check does with one scenario, decided once, from the
// scenario as read and the configuration, before anything runs or is
// written.
type plan struct {
	act    action
	reason string // actSkip, actUnrecorded, actNoLog: why
	accept Mode   // actUnrecorded, actNoLog: the mode that records it ("" when none can)
}

// action is the kind of a plan.
type action int

const (
	actRun        action = iota // run the agent: replay it, or record it in Record mode
	actSkip                     // not in this mode or on this platform
	actRender                   // refresh an authored scenario from its model.json (Scripted)
	actUnrecorded               // scaffolded, never recorded, and the mode does not record
	actNoLog                    // recorded, but its replay source (session.jsonl) is missing
)

// plan decides what the check does with its scenario (the manifest
// loaded).
func (c *checker) plan() plan {
	cfg, dir, m := c.cfg, c.s.Dir, c.s.Manifest
	if skip := skipReason(m, cfg.Mode, cfg.AllRecordings); skip != "" {
		return plan{act: actSkip, reason: skip}
	}
	switch {
	case cfg.Mode == Refresh && c.canRender() && hasModel(dir, m):
		return plan{act: actRender}
	case cfg.Mode == Record:
		return plan{act: actRun}
	case scenario.Unrecorded(dir):
		return plan{act: actUnrecorded, reason: "not recorded yet", accept: recordMode(dir, m)}
	}
	if _, err := os.Stat(filepath.Join(dir, scenario.SessionFile)); err != nil {
		// Without its replay source the agent would only fail somewhere
		// unrelated (it cannot answer its first model call).
		return plan{act: actNoLog, reason: "missing " + scenario.SessionFile + ": the scenario's replay source; record it again", accept: recordMode(dir, m)}
	}
	return plan{act: actRun}
}
