package acpsnaptest_test

import (
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/report"
)

// junitDoc is what a JUnit report says of its suites and cases.
type junitDoc struct {
	Suites []struct {
		Name       string `xml:"name,attr"`
		Failures   int    `xml:"failures,attr"`
		Properties []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Class   string `xml:"classname,attr"`
			Failure *struct {
				Type string `xml:"type,attr"`
				Body string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

// cases lists a report's cases as "classname name[ FAILED type]".
func (d junitDoc) cases() []string {
	var out []string
	for _, s := range d.Suites {
		for _, c := range s.Cases {
			line := c.Class + " " + c.Name
			if c.Failure != nil {
				line += " FAILED " + c.Failure.Type
			}
			out = append(out, line)
		}
	}
	return out
}

// TestReportOfManyBinaries: the test binaries of one go test ./... (here:
// this binary run in two packages of a module at once, as go test runs
// them) add their suites to one XML_OUTPUT_FILE, named from the module
// root, under a lock; a guard violation is a failing case; a later run
// replaces what an earlier one wrote.
func TestReportOfManyBinaries(t *testing.T) {
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "go.mod"), "module example.com/m\n")
	for _, pkg := range []string{"a", "b"} {
		copyTree(t, "testdata/example", filepath.Join(root, pkg, "testdata", "example"))
	}
	writeFile(t, filepath.Join(root, "b", "testdata", "example", "hello", "stray.txt"), "not a fixture\n")
	report, page := filepath.Join(root, "report.xml"), filepath.Join(root, "report.html")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	run := func(wrap bool, pkgs ...string) {
		var wg sync.WaitGroup
		for _, pkg := range pkgs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				argv := []string{exe, "-test.run", "^TestExample$"}
				if wrap { // another parent process: another go test run
					argv = append([]string{"sh", "-c", `"$0" "$@"; s=$?; exit $s`}, argv...)
				}
				cmd := exec.Command(argv[0], argv[1:]...)
				cmd.Dir = filepath.Join(root, pkg)
				cmd.Env = append(os.Environ(), "XML_OUTPUT_FILE="+report, "ACPSNAP_HTML="+page, "ACPSNAP_SHARD=", "TEST_TOTAL_SHARDS=")
				out, err := cmd.CombinedOutput()
				if failed := err != nil; failed != (pkg == "b") {
					t.Errorf("package %s: %v\n%s", pkg, err, out)
				}
			}()
		}
		wg.Wait()
	}
	read := func() junitDoc {
		t.Helper()
		b, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		var d junitDoc
		if err := xml.Unmarshal(b, &d); err != nil {
			t.Fatalf("%v\n%s", err, b)
		}
		return d
	}
	run(false, "a", "b")
	d := read()
	got := d.cases()
	want := []string{"a/testdata/example guards", "a/testdata/example hello", "b/testdata/example guards FAILED guards", "b/testdata/example hello"}
	if len(got) == 4 && strings.HasPrefix(got[0], "b/") { // the order the binaries ended in
		got = append(got[2:], got[:2]...)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("one report of both binaries (-want +got):\n%s", diff)
	}
	for _, s := range d.Suites {
		if len(s.Properties) != 1 || s.Properties[0].Value != d.Suites[0].Properties[0].Value {
			t.Errorf("suite %s: properties %+v, want the one run of both", s.Name, s.Properties)
		}
		for _, c := range s.Cases {
			if c.Failure != nil && !strings.Contains(c.Failure.Body, "hello/stray.txt") {
				t.Errorf("the guards failure does not name the stray file:\n%s", c.Failure.Body)
			}
		}
	}
	if diff := cmp.Diff([]string{"b/testdata/example/guards failed", "a/testdata/example/hello passed", "b/testdata/example/hello passed"}, pageScenarios(t, page)); diff != "" {
		t.Errorf("one HTML report of both binaries (-want +got):\n%s", diff)
	}
	run(true, "a") // a later go test: what the earlier one wrote goes
	if diff := cmp.Diff([]string{"a/testdata/example guards", "a/testdata/example hello"}, read().cases()); diff != "" {
		t.Errorf("a later run (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"/hello passed"}, pageScenarios(t, page)); diff != "" {
		t.Errorf("the HTML report of a later run (-want +got):\n%s", diff)
	}
}

// pageScenarios lists the scenarios of an HTML report as "corpus/name
// status" (no corpus: the report is of one).
func pageScenarios(t *testing.T, page string) []string {
	t.Helper()
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	r, err := report.ReadHTML(b)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range r.Scenarios {
		out = append(out, s.Corpus+"/"+s.Name+" "+s.Status)
	}
	return out
}
