package acpsnaptest

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/check"
	"github.com/acpsnap/acpsnap/internal/secretscan"
	"github.com/acpsnap/acpsnap/transcript"
)

// HTMLEnv names a file to write the HTML report of a Run to (docs/format.md,
// "Transcripts"), relative to the test's package folder: a CI artifact.
// Each Run writes it once its scenarios are done; "": no report.
const HTMLEnv = "ACPSNAP_HTML"

// writeHTML writes the HTML report of one Run's suite (the corpus folder
// dir), its scenarios in name order, to the file HTMLEnv names; nothing
// when it names none. Run calls it once its subtests are done.
func writeHTML(t *testing.T, dir string, s check.Suite) {
	path := os.Getenv(HTMLEnv)
	if path == "" {
		return
	}
	outs := slices.Clone(s.Outcomes)
	slices.SortFunc(outs, func(a, b check.Outcome) int { return strings.Compare(a.Name, b.Name) })
	r := transcript.NewReport(dir, outs, s.Accept)
	r.Corpus = s.Corpus
	if err := transcript.WriteFile(path, r, secretscan.New(nil, os.Environ()).Check); err != nil {
		t.Errorf("acpsnaptest: %s: %v", HTMLEnv, err)
		return
	}
	t.Logf("acpsnaptest: HTML report of %d scenarios: %s", len(outs), path)
}
