package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"slices"

	"github.com/acpsnap/acpsnap/internal/safefile"
)

// The data of a report travels inside its page, as JSON in an element no
// browser runs, so that reports merge without the runs that wrote them
// (acpsnap report merge; the test binaries of go test ./... adding to one
// ACPSNAP_HTML).
const (
	dataOpen  = `<script type="application/json" id="acpsnap-report">`
	dataClose = `</script>`
)

// data is r as the page embeds it: JSON, with <, > and & escaped
// (json.Marshal's default), so that nothing in it closes the element.
func data(r Page) (template.JS, error) {
	b, err := json.Marshal(r)
	return template.JS(b), err
}

// ReadHTML reads back the report of a page WriteHTML wrote.
func ReadHTML(page []byte) (Page, error) {
	_, rest, ok := bytes.Cut(page, []byte(dataOpen))
	if !ok {
		return Page{}, errors.New("transcript: not an acpsnap HTML report (no report data in it)")
	}
	b, _, ok := bytes.Cut(rest, []byte(dataClose))
	var r Page
	if !ok {
		return r, errors.New("transcript: the report data is cut short")
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return r, fmt.Errorf("transcript: the report data: %w", err)
	}
	return r, nil
}

// Merge is one report of the scenarios of reports: those of one corpus
// (the shards of a run) as one corpus's report, else each scenario
// labelled with its corpus. A scenario in more than one report is the
// last one's; the order is NewPage's: failures first, then by corpus and
// name.
func Merge(reports ...Page) Page {
	var out Page
	corpora := map[string]bool{}
	index := map[[2]string]int{}
	for _, r := range reports {
		if out.Title == "" {
			out.Title, out.Run = r.Title, r.Run
		}
		for _, s := range r.Scenarios {
			if s.Corpus == "" {
				s.Corpus = r.Corpus
			}
			corpora[s.Corpus] = true
			key := [2]string{s.Corpus, s.Name}
			if i, ok := index[key]; ok {
				out.Scenarios[i] = s
				continue
			}
			index[key] = len(out.Scenarios)
			out.Scenarios = append(out.Scenarios, s)
		}
	}
	if len(corpora) == 1 {
		for c := range corpora {
			out.Corpus = c
		}
		for i := range out.Scenarios {
			out.Scenarios[i].Corpus = ""
		}
	}
	slices.SortStableFunc(out.Scenarios, func(a, b Scenario) int {
		return cmp.Or(cmp.Compare(rank(a.Status), rank(b.Status)), cmp.Compare(a.Corpus, b.Corpus), cmp.Compare(a.Name, b.Name))
	})
	return out
}

// MergeFile writes r into the report at path under a lock, keeping the
// scenarios of other corpora that the same run (Page.Run, not "") wrote
// there: the test binaries of one go test ./... add to one page. What
// another run wrote, or a page that is not a report, is replaced. scan is
// as for WriteFile.
func MergeFile(path string, r Page, scan func(file string, b []byte) error) error {
	err := safefile.Update(path, 0o644, func(old []byte) ([]byte, error) {
		merged := r
		if prev, err := ReadHTML(old); err == nil && r.Run != "" && prev.Run == r.Run {
			prev.Scenarios = slices.DeleteFunc(prev.Scenarios, func(s Scenario) bool {
				return s.Corpus == r.Corpus || s.Corpus == "" && prev.Corpus == r.Corpus
			})
			merged = Merge(prev, r)
		}
		return encode(merged, path, scan)
	})
	if err != nil {
		return fmt.Errorf("transcript: write report: %w", err)
	}
	return nil
}
