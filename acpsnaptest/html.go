package acpsnaptest

import (
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acpsnap/acpsnap/check"
	"github.com/acpsnap/acpsnap/transcript"
)

// HTMLEnv names a file to write the HTML report of a Run to (docs/format.md,
// "Transcripts"), relative to the test's package folder: a CI artifact.
// Each Run writes it once its scenarios are done; "": no report.
const HTMLEnv = "ACPSNAP_HTML"

// htmlReport gathers the outcomes of one Run for its HTML report.
type htmlReport struct {
	mu   sync.Mutex
	outs []check.Outcome
}

// newHTMLReport writes the report of t's scenarios to the file HTMLEnv
// names when they are all done; nil when it names none.
func newHTMLReport(t *testing.T, dir string, cl commandLine) *htmlReport {
	path := os.Getenv(HTMLEnv)
	if path == "" {
		return nil
	}
	r := &htmlReport{}
	t.Cleanup(func() {
		accept := func(o check.Outcome) string {
			if o.Accept == "" {
				return ""
			}
			return cl.flagForm(o.Name, o.Accept)
		}
		slices.SortFunc(r.outs, func(a, b check.Outcome) int { return strings.Compare(a.Name, b.Name) })
		rep := transcript.NewReport(dir, r.outs, accept)
		if err := transcript.WriteFile(path, rep); err != nil {
			t.Errorf("acpsnaptest: %s: %v", HTMLEnv, err)
			return
		}
		t.Logf("acpsnaptest: HTML report of %d scenarios: %s", len(r.outs), path)
	})
	return r
}

// add takes one finished scenario's outcome (from parallel subtests).
func (r *htmlReport) add(o check.Outcome) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outs = append(r.outs, o)
}
