package check

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// RecordSet narrows what a Record run records (go-vcr's record modes).
type RecordSet string

// Record sets.
const (
	RecordAll     RecordSet = ""        // every recording: live scenario
	RecordMissing RecordSet = "missing" // only those not recorded yet (go-vcr's RecordOnce)
	RecordDrifted RecordSet = "drifted" // only those whose model requests drifted
)

// RecordPlan is what a narrowed record run will record, decided before
// any live model call: the scenarios, and what they will cost.
type RecordPlan struct {
	Set      RecordSet
	Names    []string // the scenarios to record, in name order
	Selected int      // the scenarios the selection held
	// Calls is the model calls the committed recordings of Names hold (what
	// re-recording them spends again, about); a scenario not recorded yet
	// adds none, its cost is unknown.
	Calls int
}

// String is the plan for people, printed before recording starts:
// "record-drifted: 2 of 35 scenarios drifted (text-turn, tool-grep); recording them spends about 5 live model call(s)".
func (p RecordPlan) String() string {
	what := map[RecordSet]string{RecordMissing: "not recorded yet", RecordDrifted: "drifted"}[p.Set]
	s := fmt.Sprintf("record-%s: %d of %d scenarios %s", p.Set, len(p.Names), p.Selected, what)
	if len(p.Names) == 0 {
		return s + ": nothing to record"
	}
	s += fmt.Sprintf(" (%s); recording them spends ", joinNames(p.Names))
	if p.Set == RecordMissing {
		return s + fmt.Sprintf("live model calls for %d scenario(s)", len(p.Names))
	}
	return s + fmt.Sprintf("about %d live model call(s)", p.Calls)
}

func joinNames(names []string) string {
	if len(names) > 8 {
		return fmt.Sprintf("%s, … %d more", strings.Join(names[:8], ", "), len(names)-8)
	}
	return strings.Join(names, ", ")
}

// Selection is base narrowed to the plan's scenarios.
func (p RecordPlan) Selection(base Selection) Selection {
	base.Only = map[string]bool{}
	for _, n := range p.Names {
		base.Only[n] = true
	}
	return base
}

// PlanRecord decides which selected scenarios of rc a Record run of set
// records. RecordMissing keeps the recording: live scenarios not recorded
// yet (all of them with AllRecordings); RecordDrifted replays the others
// (rc.Mode is ignored: no live call, nothing written) and keeps those
// whose replay failed in a way only record accepts: a changed request, a
// changed pin, changed model input.
func PlanRecord(ctx context.Context, rc RunConfig, set RecordSet) (RecordPlan, error) {
	selected, err := rc.Selected()
	if err != nil {
		return RecordPlan{}, err
	}
	p := RecordPlan{Set: set, Selected: len(selected)}
	switch set {
	case RecordMissing:
		for _, n := range selected {
			dir := filepath.Join(rc.Root, n)
			if s := rc.Folders.load(dir); s.ManifestErr == nil &&
				scenario.Unrecorded(dir) && (s.Manifest.Recording == scenario.RecordingLive || rc.AllRecordings) {
				p.Names = append(p.Names, n)
			}
		}
	case RecordDrifted:
		replay := rc
		replay.Mode, replay.Pending, replay.OnDone, replay.OnBegin, replay.Secrets = Replay, false, nil, nil, nil
		outs, err := Run(ctx, replay)
		if err != nil {
			return RecordPlan{}, err
		}
		for _, o := range outs {
			if o.Status == Failed && o.Accept == Record {
				p.Names = append(p.Names, o.Name)
				p.Calls += modelCalls(rc.Folders.load(filepath.Join(rc.Root, o.Name)))
			}
		}
	default:
		return RecordPlan{}, fmt.Errorf("check: record set %q: want missing or drifted", set)
	}
	return p, nil
}

// modelCalls counts the model calls of a scenario's committed logs: the
// steps of a native log, the requests of a composed one.
func modelCalls(s *scenario.Scenario) int {
	if s.Fixture == nil {
		return 0
	}
	n := 0
	for _, b := range s.Fixture.Logs {
		n += bytes.Count(b, []byte(`"type":"step/start"`)) + bytes.Count(b, []byte(`"type":"model/request"`))
	}
	return n
}
