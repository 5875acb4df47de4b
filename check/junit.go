package check

import (
	"encoding/xml"
	"path/filepath"
)

// Suite is one corpus's outcomes for a JUnit report.
type Suite struct {
	// Corpus is the corpus folder as the reader knows it ("snapshots",
	// "pkg/testdata/acp"): the suite's name and every case's classname, so
	// that two corpora in one report never collide.
	Corpus   string
	Outcomes []Outcome
	// Accept is the command that accepts an outcome's change ("": none).
	Accept func(Outcome) string
}

// JUnit XML, the subset CI systems read (GitHub test reporters, Jenkins,
// GitLab, Bazel): <testsuites>, one <testsuite> per corpus.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     float64      `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     float64     `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name    string        `xml:"name,attr"`
	Class   string        `xml:"classname,attr"`
	Time    float64       `xml:"time,attr"`
	Failure *junitMessage `xml:"failure,omitempty"`
	Skipped *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// JUnit renders suites as one JUnit XML document: <testsuites> holding a
// <testsuite name=CORPUS> per suite, a <testcase name=SCENARIO
// classname=CORPUS> per outcome. A failure's message is its reason and
// its body the diff and the command that accepts it; a scenario not
// recorded yet is a failure saying how to record it.
func JUnit(suites []Suite) []byte {
	var doc junitSuites
	for _, s := range suites {
		js := junitSuite{Name: filepath.ToSlash(s.Corpus), Tests: len(s.Outcomes)}
		for _, o := range s.Outcomes {
			js.add(o, s.accept(o))
		}
		doc.Tests, doc.Failures, doc.Skipped, doc.Time = doc.Tests+js.Tests, doc.Failures+js.Failures, doc.Skipped+js.Skipped, doc.Time+js.Time
		doc.Suites = append(doc.Suites, js)
	}
	b, _ := xml.MarshalIndent(doc, "", "  ") // plain structs of strings and numbers: never fails
	return append([]byte(xml.Header), append(b, '\n')...)
}

func (s Suite) accept(o Outcome) string {
	if s.Accept == nil {
		return ""
	}
	return s.Accept(o)
}

// add appends the test case of o, whose accept command is accept.
func (s *junitSuite) add(o Outcome, accept string) {
	c := junitCase{Name: o.Name, Class: s.Name, Time: o.Duration.Seconds()}
	s.Time += c.Time
	switch o.Status {
	case Failed:
		s.Failures++
		c.Failure = &junitMessage{Message: o.Reason, Body: o.Diff}
		if accept != "" {
			c.Failure.Body += "accept with: " + accept + "\n"
		}
	case Unrecorded:
		s.Failures++
		c.Failure = &junitMessage{Message: o.Reason + ": record it with: " + accept}
	case Skipped:
		s.Skipped++
		c.Skipped = &junitMessage{Message: o.Reason}
	}
	s.Cases = append(s.Cases, c)
}
