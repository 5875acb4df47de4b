package acpsnaptest

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/acpsnap/acpsnap/check"
	"github.com/acpsnap/acpsnap/internal/atomicfile"
	"github.com/acpsnap/acpsnap/internal/secretscan"
)

// report is the JUnit report of this test binary (XML_OUTPUT_FILE, as
// Bazel sets it): every Run of the binary adds its corpus's suite, and
// the file is rewritten whole, atomically, as each Run ends. It is the
// one process-wide state of the package, because the file is one.
var junitReport struct {
	mu     sync.Mutex
	suites []check.Suite
}

// suite gathers one Run's outcomes, for the JUnit report (path, "" for
// none) and the hints printed once at the end.
type suite struct {
	mu      sync.Mutex
	s       check.Suite
	path    string
	pending bool // some scenario wrote pending files
	changes check.Changes
}

// newSuite starts the suite of one Run, written when its subtests are
// done (a parallel subtest ends after Run returns; a cleanup of t runs
// after all of them).
func newSuite(t *testing.T, s settings, cl commandLine) *suite {
	su := &suite{path: s.junit, s: check.Suite{Corpus: cl.dir, Accept: func(o check.Outcome) string {
		if o.Accept == "" {
			return ""
		}
		return cl.flagForm(o.Name, o.Accept)
	}}}
	t.Cleanup(func() {
		for _, c := range su.changes.Shared() {
			var cmds []string
			for _, a := range c.Commands() {
				cmds = append(cmds, cl.groupForm(a))
			}
			if len(cmds) > 0 {
				t.Logf("%s; accept once with: %s", c, strings.Join(cmds, " and "))
			}
		}
		if su.pending {
			t.Logf("pending files written: accept them all with: %s (or: %s; %s)", cl.settle("accept"), cl.settle("review"), cl.settle("reject"))
			if hint := check.IgnoreHint("."); hint != "" {
				t.Log(hint)
			}
		}
		if su.path == "" {
			return
		}
		if err := su.write(); err != nil {
			t.Error(err)
		}
	})
	return su
}

func (su *suite) add(o check.Outcome) {
	su.mu.Lock()
	su.s.Outcomes = append(su.s.Outcomes, o)
	su.pending = su.pending || len(o.Pending) > 0
	su.mu.Unlock()
}

// write adds the suite, its outcomes in name order, to the binary's
// report and rewrites the file.
func (su *suite) write() error {
	su.mu.Lock()
	slices.SortFunc(su.s.Outcomes, func(a, b check.Outcome) int { return strings.Compare(a.Name, b.Name) })
	junitReport.mu.Lock()
	defer junitReport.mu.Unlock()
	junitReport.suites = append(junitReport.suites, su.s)
	su.mu.Unlock()
	b := check.JUnit(junitReport.suites)
	if err := secretscan.New(nil, os.Environ()).Check(su.path, b); err != nil {
		return fmt.Errorf("acpsnaptest: write the JUnit report (XML_OUTPUT_FILE): %w", err)
	}
	if err := atomicfile.Write(su.path, b, 0o644); err != nil {
		return fmt.Errorf("acpsnaptest: write the JUnit report (XML_OUTPUT_FILE): %w", err)
	}
	return nil
}
