package check

import (
	"bytes"
	"encoding/xml"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestJUnit(t *testing.T) {
	type testCase struct {
		name   string
		suites []Suite
		want   junitSuites
	}
	accept := func(o Outcome) string { return "acpsnap " + string(o.Accept) + " -run ^" + o.Name + "$" }
	outs := []Outcome{
		{Name: "text-turn", Status: Passed, Duration: 1500 * time.Millisecond},
		{Name: "tool-bash", Status: Failed, Reason: "stdout differs", Duration: 250 * time.Millisecond,
			Diff: "--- want\n+++ got\n-a <b> & \"c\"\n+d\n", Accept: Update},
		{Name: "posix-only", Status: Skipped, Reason: "platform: posix"},
		{Name: "draft", Status: Unrecorded, Reason: "not recorded yet", Accept: Record},
	}
	for _, tc := range []testCase{
		{name: "empty", want: junitSuites{XMLName: xml.Name{Local: "testsuites"}}},
		{name: "one corpus", suites: []Suite{{Corpus: "snapshots", Outcomes: outs, Accept: accept}}, want: junitSuites{
			XMLName: xml.Name{Local: "testsuites"}, Tests: 4, Failures: 2, Skipped: 1, Time: 1.75,
			Suites: []junitSuite{{Name: "snapshots", Tests: 4, Failures: 2, Skipped: 1, Time: 1.75, Cases: []junitCase{
				{Name: "text-turn", Class: "snapshots", Time: 1.5},
				{Name: "tool-bash", Class: "snapshots", Time: 0.25,
					Failure: &junitMessage{Message: "stdout differs", Body: "--- want\n+++ got\n-a <b> & \"c\"\n+d\naccept with: acpsnap update -run ^tool-bash$\n"}},
				{Name: "posix-only", Class: "snapshots", Skipped: &junitMessage{Message: "platform: posix"}},
				{Name: "draft", Class: "snapshots", Failure: &junitMessage{Message: "not recorded yet: record it with: acpsnap record -run ^draft$"}},
			}}},
		}},
		{name: "two corpora never collide", suites: []Suite{
			{Corpus: "pkg/testdata/native", Outcomes: outs[:1]},
			{Corpus: "pkg/testdata/http", Outcomes: outs[:1]},
		}, want: junitSuites{
			XMLName: xml.Name{Local: "testsuites"}, Tests: 2, Time: 3,
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
			var got junitSuites
			if err := xml.Unmarshal(b, &got); err != nil {
				t.Fatalf("report does not parse: %v\n%s", err, b)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("JUnit read back (-want +got):\n%s", d)
			}
		})
	}
}
