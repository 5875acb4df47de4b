package acpsnaptest

import (
	"os"
	"slices"
	"testing"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/report"
	"github.com/acpsnap/acpsnap/internal/secrets"
)

// HTMLEnv names a file to write the HTML report of a Run to (docs/format.md,
// "Transcripts"), relative to the test's package folder: a CI artifact.
// Each Run adds its corpus once its scenarios are done, keeping what the
// other Runs and test binaries of the same go test run wrote there
// (report.MergeFile); "": no report.
const HTMLEnv = "ACPSNAP_HTML"

// writeHTML adds the HTML report of one Run's suite (the corpus folder
// dir), its scenarios in name order and the guards only when they failed,
// to the file HTMLEnv names; nothing when it names none. Run calls it once
// its subtests are done.
func writeHTML(t *testing.T, dir string, su *suite) {
	path := os.Getenv(HTMLEnv)
	if path == "" {
		return
	}
	s := su.sorted()
	outs := slices.DeleteFunc(s.Outcomes, func(o check.Outcome) bool { return o.Name == report.GuardsName && o.Status == check.Passed })
	r := report.NewPage(dir, outs, s.Accept)
	r.Corpus, r.Run = s.Corpus, s.Run
	if err := report.MergeFile(path, r, secrets.New(nil, os.Environ()).Check); err != nil {
		t.Errorf("acpsnaptest: %s: %v", HTMLEnv, err)
		return
	}
	t.Logf("acpsnaptest: HTML report of %d scenarios: %s", len(outs), path)
}
