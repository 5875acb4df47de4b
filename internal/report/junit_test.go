package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/harness"
)

// junitOutcomes are one of each kind of outcome a report shows.
func junitOutcomes() []check.Outcome {
	return []check.Outcome{
		{Name: "text-turn", Status: check.Passed, Duration: 1500 * time.Millisecond},
		{Name: "tool-bash", Status: check.Failed, Reason: "stdout differs", Duration: 250 * time.Millisecond,
			Diff: "--- want\n+++ got\n-a <b> & \"c\"\n+d\n", Accept: check.Update},
		{Name: "posix-only", Status: check.Skipped, Reason: "platform: posix"},
		{Name: "draft", Status: check.Unrecorded, Reason: "not recorded yet", Accept: check.Record},
		{Name: "no-agent", Status: check.Failed, Reason: "start agent \"x\": not found", Err: fmt.Errorf("start: %w", harness.ErrInfrastructure)},
		{Name: "crash", Status: check.Failed, Reason: "the agent exited: status 2", Err: errors.New("the agent exited: status 2"),
			Stderr: "panic: boom\n", Duration: 10 * time.Microsecond},
		GuardsOutcome("guards", []check.Violation{{Path: "snapshots/x/input.json", Msg: "input.json:3: $.steps: unknown op"}, {Path: "snapshots/y", Msg: "orphan folder"}}),
	}
}

func TestJUnit(t *testing.T) {
	type testCase struct {
		name   string
		suites []Suite
		want   junitSuites
	}
	accept := func(o check.Outcome) string {
		if o.Accept == "" {
			return ""
		}
		return "acpsnap " + string(o.Accept) + " -run ^" + o.Name + "$"
	}
	outs := junitOutcomes()
	started := time.Date(2026, 3, 1, 9, 30, 5, 0, time.FixedZone("CET", 3600))
	for _, tc := range []testCase{
		{name: "empty", want: junitSuites{XMLName: xml.Name{Local: "testsuites"}, Name: "acpsnap"}},
		{name: "one corpus", suites: []Suite{{Corpus: "snapshots", Outcomes: outs, Accept: accept, Started: started, Run: "go 12"}}, want: junitSuites{
			XMLName: xml.Name{Local: "testsuites"}, Name: "acpsnap", Tests: 7, Failures: 4, Errors: 1, Time: 1.75,
			Suites: []junitSuite{{Name: "snapshots", Tests: 7, Failures: 4, Errors: 1, Skipped: 1, Time: 1.75,
				Timestamp: "2026-03-01T08:30:05", Properties: &junitProperties{[]junitProperty{{"acpsnap.run", "go 12"}}},
				Cases: []junitCase{
					{Name: "text-turn", Class: "snapshots", Time: 1.5},
					{Name: "tool-bash", Class: "snapshots", Time: 0.25, Failure: &junitMessage{Type: "diff", Message: "stdout differs",
						Body: "--- want\n+++ got\n-a <b> & \"c\"\n+d\naccept with: acpsnap update -run ^tool-bash$\n"}},
					{Name: "posix-only", Class: "snapshots", Skipped: &junitMessage{Message: "platform: posix"}},
					{Name: "draft", Class: "snapshots", Failure: &junitMessage{Type: "unrecorded", Message: "not recorded yet: record it with: acpsnap record -run ^draft$"}},
					{Name: "no-agent", Class: "snapshots", Error: &junitMessage{Type: "infrastructure", Message: "start agent \"x\": not found"}},
					{Name: "crash", Class: "snapshots", Time: 0, Failure: &junitMessage{Type: "run", Message: "the agent exited: status 2"}, SystemErr: "panic: boom\n"},
					{Name: "guards", Class: "snapshots", Failure: &junitMessage{Type: "guards", Message: "2 guard violation(s)",
						Body: "snapshots/x/input.json: input.json:3: $.steps: unknown op\nsnapshots/y: orphan folder\n"}},
				}}},
		}},
		{name: "two corpora never collide", suites: []Suite{
			{Corpus: "pkg/testdata/native", Outcomes: outs[:1]},
			{Corpus: "pkg/testdata/http", Outcomes: outs[:1]},
		}, want: junitSuites{
			XMLName: xml.Name{Local: "testsuites"}, Name: "acpsnap", Tests: 2, Time: 3,
			Suites: []junitSuite{
				{Name: "pkg/testdata/native", Tests: 1, Time: 1.5, Cases: []junitCase{{Name: "text-turn", Class: "pkg/testdata/native", Time: 1.5}}},
				{Name: "pkg/testdata/http", Tests: 1, Time: 1.5, Cases: []junitCase{{Name: "text-turn", Class: "pkg/testdata/http", Time: 1.5}}},
			},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := JUnit(tc.suites)
			if !bytes.HasPrefix(b, []byte(xml.Header)) {
				t.Errorf("report does not start with the XML header:\n%s", b)
			}
			if d := cmp.Diff(tc.want, readJUnit(t, b)); d != "" {
				t.Errorf("JUnit read back (-want +got):\n%s", d)
			}
			if bad := regexp.MustCompile(`time="[^"]*[eE][^"]*"`).Find(b); bad != nil {
				t.Errorf("a time in exponent form, which Jenkins refuses: %s", bad)
			}
		})
	}
}

func readJUnit(t *testing.T, b []byte) junitSuites {
	t.Helper()
	var got junitSuites
	if err := xml.Unmarshal(b, &got); err != nil {
		t.Fatalf("report does not parse: %v\n%s", err, b)
	}
	return got
}

// TestJUnitSchema validates reports of every shape against the schema of
// testdata/junit.xsd (what Jenkins, GitLab and GitHub's reporters read)
// with libxml2's validator.
func TestJUnitSchema(t *testing.T) {
	if _, err := exec.LookPath("xmllint"); err != nil {
		t.Skip("xmllint is not installed (install it with: apt-get install libxml2-utils)")
	}
	outs := junitOutcomes()
	started := time.Date(2026, 3, 1, 9, 30, 5, 0, time.UTC)
	reports := map[string][]byte{
		"empty":      JUnit(nil),
		"every kind": JUnit([]Suite{{Corpus: "snapshots", Outcomes: outs, Started: started, Run: "go 12"}}),
		"merged": MergeJUnit(JUnit([]Suite{{Corpus: "a", Outcomes: outs[:2], Run: "r"}}),
			[]Suite{{Corpus: "b", Outcomes: outs[2:], Run: "r", Started: started}}),
	}
	dir := t.TempDir()
	for name, b := range reports {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".xml")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("xmllint", "--noout", "--schema", "testdata/junit.xsd", p).CombinedOutput()
		if err != nil {
			t.Errorf("%s: xmllint --schema testdata/junit.xsd: %v\n%s\n%s", name, err, out, b)
		}
	}
	// The schema can fail: what Jenkins refuses is refused.
	bad := bytes.Replace(reports["every kind"], []byte(`<testsuites name="acpsnap"`), []byte(`<testsuites skipped="1" name="acpsnap"`), 1)
	p := filepath.Join(dir, "bad.xml")
	os.WriteFile(p, bad, 0o644)
	if out, err := exec.Command("xmllint", "--noout", "--schema", "testdata/junit.xsd", p).CombinedOutput(); err == nil {
		t.Errorf("xmllint accepts a skipped count on <testsuites>, which Jenkins's schema refuses:\n%s", out)
	}
}

func TestMergeJUnit(t *testing.T) {
	outs := junitOutcomes()
	names := func(b []byte) []string {
		var got []string
		for _, s := range readJUnit(t, b).Suites {
			got = append(got, s.Name+"@"+s.run())
		}
		return got
	}
	type testCase struct {
		name string
		old  []byte
		new  []Suite
		want []string
	}
	first := JUnit([]Suite{{Corpus: "a/native", Outcomes: outs[:1], Run: "go 1"}, {Corpus: "a/http", Outcomes: outs[:1], Run: "go 1"}})
	for _, tc := range []testCase{
		{"nothing before", nil, []Suite{{Corpus: "b", Run: "go 1"}}, []string{"b@go 1"}},
		{"another package of the run adds its suite", first, []Suite{{Corpus: "b", Run: "go 1"}}, []string{"a/native@go 1", "a/http@go 1", "b@go 1"}},
		{"a suite of the run is replaced", first, []Suite{{Corpus: "a/http", Outcomes: outs, Run: "go 1"}}, []string{"a/native@go 1", "a/http@go 1"}},
		{"another run's suites are dropped", first, []Suite{{Corpus: "b", Run: "go 2"}}, []string{"b@go 2"}},
		{"no run: no merge", first, []Suite{{Corpus: "b"}}, []string{"b@"}},
		{"not a report", []byte("<html>"), []Suite{{Corpus: "b", Run: "go 1"}}, []string{"b@go 1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := MergeJUnit(tc.old, tc.new)
			if d := cmp.Diff(tc.want, names(b)); d != "" {
				t.Errorf("suites (-want +got):\n%s", d)
			}
			doc := readJUnit(t, b)
			tests := 0
			for _, s := range doc.Suites {
				tests += s.Tests
			}
			if doc.Tests != tests {
				t.Errorf("<testsuites tests=%d>, the suites hold %d", doc.Tests, tests)
			}
		})
	}
}

func TestCorpusName(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	module := filepath.Dir(filepath.Dir(wd)) // the repository: internal/report/ is two folders below
	rf := filepath.Join(t.TempDir(), "t.runfiles")
	type testCase struct {
		dir, module string
		runfiles    []string
		want        string
	}
	for _, tc := range []testCase{
		{"testdata/acp", module, nil, "internal/report/testdata/acp"},
		{".", module, nil, "internal/report"},
		{filepath.Join(wd, "testdata"), module, nil, "internal/report/testdata"},
		{filepath.Join(rf, "__main__", "corpus"), "", []string{rf}, "corpus"},
		{filepath.Join(rf, "__main__", "pkg", "testdata", "acp"), "", []string{"/elsewhere", rf}, "pkg/testdata/acp"},
		{"corpus", "", nil, "corpus"},
		{".", "", nil, "report"},
		{"../..", "", nil, filepath.Base(module)},
		{"/srv/ci/sandbox/123/corpus", "", nil, "corpus"},
		{"/srv/ci/sandbox/123/corpus", "", []string{"/srv/ci/sandbox/123"}, "corpus"},
	} {
		if got := CorpusName(tc.dir, tc.module, tc.runfiles); got != tc.want {
			t.Errorf("CorpusName(%q, %q, %q) = %q, want %q", tc.dir, tc.module, tc.runfiles, got, tc.want)
		}
	}
}

// FuzzMergeJUnit: whatever the file a report is merged into holds, the
// merge never fails, is one report that parses, counts what it holds, and
// keeps the new suites.
func FuzzMergeJUnit(f *testing.F) {
	outs := junitOutcomes()
	f.Add(JUnit([]Suite{{Corpus: "a", Outcomes: outs, Run: "r"}}))
	f.Add(JUnit([]Suite{{Corpus: "b", Outcomes: outs[:2], Run: "other"}}))
	f.Add([]byte(`<testsuites><testsuite name="x"><properties><property name="acpsnap.run" value="r"/></properties><testcase name="y"/></testsuite></testsuites>`))
	f.Add([]byte("<html>"))
	f.Fuzz(func(t *testing.T, old []byte) {
		b := MergeJUnit(old, []Suite{{Corpus: "new", Outcomes: outs[:3], Run: "r"}})
		var doc junitSuites
		if err := xml.Unmarshal(b, &doc); err != nil {
			t.Fatalf("the merged report does not parse: %v\n%s", err, b)
		}
		tests, names := 0, map[string]bool{}
		for _, s := range doc.Suites {
			tests += s.Tests
			names[s.Name] = true
		}
		if doc.Tests != tests || !names["new"] {
			t.Fatalf("<testsuites tests=%d> over suites of %d tests, suites %v; want the new suite kept:\n%s", doc.Tests, tests, names, b)
		}
	})
}
