package report

import (
	"encoding/xml"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/check"

	"github.com/acpsnap/acpsnap/internal/harness"
)

// Suite is one corpus's outcomes for a JUnit report.
type Suite struct {
	// Corpus is the corpus folder as the reader knows it ("snapshots",
	// "pkg/testdata/acp", CorpusName): the suite's name and every case's
	// classname, so that two corpora in one report never collide.
	Corpus   string
	Outcomes []check.Outcome
	// Accept is the command that accepts an outcome's change ("": none).
	Accept func(check.Outcome) string
	// Started is when the suite's run began: its timestamp (zero: none).
	Started time.Time
	// Run names the run that wrote the suite, a <property name="acpsnap.run">
	// (MergeJUnit keeps only the suites of one run); "": none.
	Run string
}

// GuardsName is the test case of the guards checked over a whole corpus.
const GuardsName = "guards"

// ErrGuards is wrapped by the error of an outcome that reports guard
// violations (GuardsOutcome).
var ErrGuards = errors.New("guard violations")

// GuardsOutcome is the outcome of the guards of name (GuardsName for the
// whole corpus, else one scenario's folder): passed when vs is empty,
// else failed with every violation, one a line.
func GuardsOutcome(name string, vs []check.Violation) check.Outcome {
	o := check.Outcome{Name: name, Status: check.Passed}
	if len(vs) == 0 {
		return o
	}
	lines := make([]string, len(vs))
	for i, v := range vs {
		lines[i] = v.String() + "\n"
	}
	o.Status, o.Reason, o.Diff = check.Failed, fmt.Sprintf("%d guard violation(s)", len(vs)), strings.Join(lines, "")
	o.Err = fmt.Errorf("%w: %s", ErrGuards, strings.TrimSuffix(o.Diff, "\n"))
	return o
}

// JUnit XML as CI systems read it (Jenkins, GitLab, GitHub's test
// reporters, Bazel): <testsuites>, one <testsuite> per corpus, the subset
// of attributes the strictest of them (Jenkins's schema) accepts, checked
// against testdata/junit.xsd.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr,omitempty"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Time     seconds      `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Time       seconds          `xml:"time,attr"`
	Timestamp  string           `xml:"timestamp,attr,omitempty"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Class     string        `xml:"classname,attr"`
	Time      seconds       `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemErr string        `xml:"system-err,omitempty"`
}

type junitMessage struct {
	Type    string `xml:"type,attr,omitempty"`
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// seconds is a duration as JUnit writes it: seconds with three decimals,
// never in exponent form (Jenkins's schema refuses "1e-05").
type seconds float64

func (s seconds) MarshalXMLAttr(name xml.Name) (xml.Attr, error) {
	return xml.Attr{Name: name, Value: fmt.Sprintf("%.3f", float64(s))}, nil
}

// The failure and error types of a JUnit report: what went wrong, for a
// CI system to group by (docs/ci.md, "JUnit").
const (
	typeDiff            = "diff"             // the run differs from the fixtures
	typeRun             = "run"              // the run did not finish: the agent crashed, hung or broke the protocol
	typeUnrecorded      = "unrecorded"       // not recorded yet
	typeInvalidScenario = "invalid-scenario" // the scenario's own files are wrong
	typeGuards          = "guards"           // the corpus fails its guards
	typeInfrastructure  = "infrastructure"   // no verdict: the agent could not be started, the machine failed
)

// runProperty names the property that says which run wrote a suite.
const runProperty = "acpsnap.run"

// JUnit renders suites as one JUnit XML document: <testsuites> holding a
// <testsuite name=CORPUS> per suite, a <testcase name=SCENARIO
// classname=CORPUS> per outcome. A difference is a <failure type="diff">
// whose message is its reason and whose body is the diff and the command
// that accepts it; a scenario not recorded yet is a failure saying how to
// record it; what kept the scenario from being checked at all (the agent
// could not be started) is an <error>; a skipped one is <skipped>.
func JUnit(suites []Suite) []byte {
	var js []junitSuite
	for _, s := range suites {
		js = append(js, s.junit())
	}
	return junitDocument(js)
}

func junitDocument(suites []junitSuite) []byte {
	doc := junitSuites{Name: "acpsnap", Suites: suites}
	for _, js := range suites {
		doc.Tests, doc.Failures, doc.Errors, doc.Time = doc.Tests+js.Tests, doc.Failures+js.Failures, doc.Errors+js.Errors, doc.Time+js.Time
	}
	b, _ := xml.MarshalIndent(doc, "", "  ") // plain structs of strings and numbers: never fails
	return append([]byte(xml.Header), append(b, '\n')...)
}

// MergeJUnit is JUnit of suites after the suites of old (a report JUnit
// wrote) that the same run wrote (Suite.Run, not "") under other names:
// several processes of one run (the test binaries of go test ./...) add
// to one report, and what another run left is dropped. An old report
// that does not parse is replaced.
func MergeJUnit(old []byte, suites []Suite) []byte {
	var prev junitSuites
	mine := map[string]bool{}
	run := ""
	for _, s := range suites {
		mine[filepath.ToSlash(s.Corpus)], run = true, s.Run
	}
	var js []junitSuite
	if run != "" && xml.Unmarshal(old, &prev) == nil {
		for _, p := range prev.Suites {
			if p.run() == run && !mine[p.Name] {
				js = append(js, p)
			}
		}
	}
	for _, s := range suites {
		js = append(js, s.junit())
	}
	return junitDocument(js)
}

func (s junitSuite) run() string {
	if s.Properties == nil {
		return ""
	}
	for _, p := range s.Properties.Property {
		if p.Name == runProperty {
			return p.Value
		}
	}
	return ""
}

// junit is the <testsuite> of s.
func (s Suite) junit() junitSuite {
	js := junitSuite{Name: filepath.ToSlash(s.Corpus), Tests: len(s.Outcomes)}
	if !s.Started.IsZero() {
		js.Timestamp = s.Started.UTC().Format("2006-01-02T15:04:05")
	}
	if s.Run != "" {
		js.Properties = &junitProperties{Property: []junitProperty{{runProperty, s.Run}}}
	}
	for _, o := range s.Outcomes {
		accept := ""
		if s.Accept != nil {
			accept = s.Accept(o)
		}
		js.add(o, accept)
	}
	return js
}

// add appends the test case of o, whose accept command is accept.
func (s *junitSuite) add(o check.Outcome, accept string) {
	c := junitCase{Name: o.Name, Class: s.Name, Time: seconds(o.Duration.Seconds())}
	s.Time += c.Time
	switch typ := failureType(o); {
	case o.Status == check.Skipped:
		s.Skipped++
		c.Skipped = &junitMessage{Message: o.Reason}
	case o.Status == check.Unrecorded:
		s.Failures++
		c.Failure = &junitMessage{Type: typ, Message: o.Reason + ": record it with: " + accept}
	case o.Status != check.Failed:
	case typ == typeInfrastructure:
		s.Errors++
		c.Error = &junitMessage{Type: typ, Message: o.Reason, Body: o.Diff}
	default:
		s.Failures++
		c.Failure = &junitMessage{Type: typ, Message: o.Reason, Body: o.Diff}
		if accept != "" {
			c.Failure.Body += "accept with: " + accept + "\n"
		}
	}
	if o.Status == check.Failed {
		c.SystemErr = o.Stderr
	}
	s.Cases = append(s.Cases, c)
}

// failureType is the type of o's failure or error.
func failureType(o check.Outcome) string {
	switch {
	case o.Status == check.Unrecorded:
		return typeUnrecorded
	case errors.Is(o.Err, ErrGuards):
		return typeGuards
	case errors.Is(o.Err, harness.ErrInfrastructure):
		return typeInfrastructure
	case errors.Is(o.Err, harness.ErrInvalidScenario):
		return typeInvalidScenario
	case o.Err != nil:
		return typeRun
	}
	return typeDiff
}

// CorpusName is how a report names the corpus folder dir, the same on
// every machine: its path below module (the Go module's root; "": none),
// else below the repository folder of a Bazel runfiles tree that holds it,
// else dir as given when it is relative and inside the current folder,
// else its folder's name. Never an absolute path, never ".".
func CorpusName(dir, module string, runfiles []string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return filepath.ToSlash(filepath.Clean(dir))
	}
	if rel, ok := below(module, abs); ok {
		return rel
	}
	for _, root := range runfiles {
		if rel, ok := below(root, abs); ok {
			if _, inRepo, ok := strings.Cut(rel, "/"); ok {
				return inRepo
			}
		}
	}
	if d := filepath.Clean(dir); !filepath.IsAbs(d) && d != "." && d != ".." && !strings.HasPrefix(d, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(d)
	}
	return filepath.Base(abs)
}

// below is abs relative to root, slash-separated, when it lies strictly
// below it.
func below(root, abs string) (string, bool) {
	if root == "" {
		return "", false
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return filepath.ToSlash(rel), true
}
