package report

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/safefile"
)

// Page is what WriteHTML shows: a corpus run, one Scenario per
// outcome, in the order given.
type Page struct {
	Title     string // the page title; "": "acpsnap report"
	Corpus    string // the corpus folder, as the user named it; "": several (Scenario.Corpus)
	Scenarios []Scenario
	// Run names the run that wrote the report, for MergeFile ("": none).
	Run string
}

// Scenario is one scenario of a report: its outcome and its transcript.
type Scenario struct {
	// Corpus is the scenario's corpus in a report of several corpora
	// (Merge); "": the report's.
	Corpus   string
	Name     string
	Status   string // check.Status: passed, failed, skipped, unrecorded
	Duration time.Duration
	Reason   string // why it failed or was skipped
	Diff     string // the failure's diff (-want +got), as printed
	Accept   string // the exact command that accepts the change; "": none
	Stderr   string // the agent's stderr tail, for a failure
	// Transcript is the conversation: what the run produced for a failure
	// that produced one, else the fixtures. nil: it could not be built
	// (TranscriptErr says why).
	Transcript    *Transcript
	TranscriptErr string
}

// FromOutcome is the report entry of the outcome o of the scenario in the
// corpus folder root; accept is the command that accepts its change.
func FromOutcome(root string, o check.Outcome, accept string) Scenario {
	s := Scenario{Name: o.Name, Status: string(o.Status), Duration: o.Duration, Reason: o.Reason,
		Diff: o.Diff, Accept: accept}
	if o.Status == check.Failed {
		s.Stderr = o.Stderr
	}
	dir := filepath.Join(root, o.Name)
	var err error
	if o.Got != nil {
		s.Transcript, err = FromRun(dir, o.Got, "run")
	} else if o.Status != check.Unrecorded && !errors.Is(o.Err, ErrGuards) {
		s.Transcript, err = Load(dir)
	}
	if err != nil {
		s.TranscriptErr = fmt.Sprint(err)
	}
	return s
}

// NewPage is the report of a corpus run: one entry per outcome of the
// corpus folder root, accept giving each its accept command; failures
// first, then the rest, each in the order given.
func NewPage(root string, outs []check.Outcome, accept func(check.Outcome) string) Page {
	r := Page{Corpus: root}
	for _, o := range outs {
		r.Scenarios = append(r.Scenarios, FromOutcome(root, o, accept(o)))
	}
	slices.SortStableFunc(r.Scenarios, func(a, b Scenario) int { return cmp.Compare(rank(a.Status), rank(b.Status)) })
	return r
}

// rank orders statuses in a report: what needs a person first.
func rank(status string) int {
	switch check.Status(status) {
	case check.Failed, check.Unrecorded:
		return 0
	}
	return 1
}

// WriteFile writes r as HTML to path, whole or not at all: nothing when
// scan (nil: none) refuses the page, which may show fixtures (the
// secret scan's Check: a report never holds a key).
func WriteFile(path string, r Page, scan func(file string, b []byte) error) error {
	b, err := encode(r, path, scan)
	if err == nil {
		err = safefile.Write(path, b, 0o644)
	}
	if err != nil {
		return fmt.Errorf("transcript: write report: %w", err)
	}
	return nil
}

// encode is the page of r, once scan (nil: none) passes it as the file
// path.
func encode(r Page, path string, scan func(file string, b []byte) error) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteHTML(&buf, r); err != nil {
		return nil, err
	}
	if scan != nil {
		if err := scan(path, buf.Bytes()); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}
