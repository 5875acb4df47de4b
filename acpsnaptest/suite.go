package acpsnaptest

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/internal/report"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/secrets"
)

// junitReport holds the suites of this test binary for its JUnit report
// (XML_OUTPUT_FILE, as Bazel sets it): every Run adds its corpus's suite
// as it ends, and the file is rewritten with them, under a lock, keeping
// what the other test binaries of the same go test run added
// (report.MergeJUnit). It is the one process-wide state of the package,
// because the file is one.
var junitReport struct {
	mu     sync.Mutex
	suites []report.Suite
}

// suite gathers one Run's outcomes, for the JUnit report (path, "" for
// none) and the hints printed once at the end.
type suite struct {
	mu      sync.Mutex
	s       report.Suite
	path    string
	pending bool // some scenario wrote pending files
	changes report.Changes
}

// newSuite starts the suite of one Run of the corpus at dir, written when
// its subtests are done (a parallel subtest ends after Run returns; a
// cleanup of t runs after all of them).
func newSuite(t *testing.T, s settings, cl commandLine, dir string) *suite {
	su := &suite{path: s.junit, s: report.Suite{Corpus: corpusName(dir, s.runfiles), Started: time.Now(), Run: runID(), Accept: func(o check.Outcome) string {
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
			if hint := report.IgnoreHint("."); hint != "" {
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

// corpusName is the name of the corpus at dir in reports: its path from
// the module root (report.CorpusName).
func corpusName(dir string, runfiles []string) string {
	module := ""
	if wd, err := os.Getwd(); err == nil {
		module, _ = moduleRoot(wd)
	}
	return report.CorpusName(dir, module, runfiles)
}

func (su *suite) add(o check.Outcome) {
	su.mu.Lock()
	su.s.Outcomes = append(su.s.Outcomes, o)
	su.pending = su.pending || len(o.Pending) > 0
	su.mu.Unlock()
}

// sorted is the suite with its outcomes in name order, the guards first.
func (su *suite) sorted() report.Suite {
	su.mu.Lock()
	defer su.mu.Unlock()
	s := su.s
	s.Outcomes = slices.Clone(s.Outcomes)
	slices.SortFunc(s.Outcomes, func(a, b check.Outcome) int {
		if (a.Name == report.GuardsName) != (b.Name == report.GuardsName) {
			if a.Name == report.GuardsName {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	return s
}

// write adds the suite to the binary's report and rewrites the file,
// keeping the suites the other binaries of the run wrote there.
func (su *suite) write() error {
	junitReport.mu.Lock()
	defer junitReport.mu.Unlock()
	junitReport.suites = append(junitReport.suites, su.sorted())
	leaks := secrets.New(nil, os.Environ())
	err := safefile.Update(su.path, 0o644, func(old []byte) ([]byte, error) {
		b := report.MergeJUnit(old, junitReport.suites)
		return b, leaks.Check(su.path, b)
	})
	if err != nil {
		return fmt.Errorf("acpsnaptest: write the JUnit report (XML_OUTPUT_FILE): %w", err)
	}
	return nil
}

// runID names the go test run this test binary is part of, for the
// reports several binaries add to: its parent process (go test runs every
// test binary itself) and, where /proc says, when that process started (a
// process id is reused).
func runID() string {
	ppid := os.Getppid()
	id := fmt.Sprintf("pid %d", ppid)
	b, err := os.ReadFile(filepath.Join("/proc", fmt.Sprint(ppid), "stat"))
	if i := strings.LastIndexByte(string(b), ')'); err == nil && i >= 0 {
		if f := strings.Fields(string(b[i+1:])); len(f) > 19 {
			id += " started " + f[19] // starttime, field 22 of proc(5)
		}
	}
	return id
}
