package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/console"
)

// registerRecordSets defines record's -missing and -drifted (go-vcr's
// record modes).
func registerRecordSets(fs *flag.FlagSet, f *runFlags) {
	fs.BoolVar(&f.missing, "missing", false, "record only the scenarios not recorded yet")
	fs.BoolVar(&f.drifted, "drifted", false, "replay first, then re-record only the scenarios whose model requests drifted")
}

// recordPlan narrows a record -missing or -drifted run to the scenarios
// its plan keeps, after printing how many (and so how many live model
// calls) it will spend. nothing: the plan is empty, the run is over.
func (e *env) recordPlan(ctx context.Context, f *runFlags, rc *check.RunConfig) (nothing bool, err error) {
	set := check.RecordAll
	switch {
	case f.missing:
		set = check.RecordMissing
	case f.drifted:
		set = check.RecordDrifted
	}
	if set == check.RecordAll {
		return false, nil
	}
	plan, err := check.PlanRecord(ctx, *rc, set)
	if err != nil {
		return true, err
	}
	fmt.Fprintln(e.stdout, console.Text(plan.String()))
	rc.Selection = plan.Selection(rc.Selection)
	return len(plan.Names) == 0, nil
}
