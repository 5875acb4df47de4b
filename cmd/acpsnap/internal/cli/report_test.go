package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/internal/report"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/secrets"
	"github.com/google/go-cmp/cmp"
)

// outcomes are one passed, one failed (with a diff) and one skipped scenario.
var outcomes = []check.Outcome{
	{Name: "text-turn", Status: check.Passed, Duration: 1500 * time.Millisecond},
	{Name: "tool-bash", Status: check.Failed, Reason: "stdout differs", Duration: 250 * time.Millisecond,
		Diff: "--- want\n+++ got\n-a <b> & \"c\"\n+d\n", Accept: check.Update},
	{Name: "tool-bash-client-terminal", Status: check.Skipped, Reason: "platform: posix"},
}

// TestWriteJUnit checks the file writeJUnit leaves (report.JUnit's tests
// check what it holds): whole, over a stale one, no temporary file left.
func TestWriteJUnit(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "report.xml")
	if err := os.WriteFile(path, []byte("stale"), 0o644); err != nil {
		t.Fatal(err)
	}
	accept := func(o check.Outcome) string { return acceptCommand(o, &runFlags{dir: "testdata/acp"}) }
	if err := writeJUnit(&runFlags{junit: path, dir: "testdata/acp"}, outcomes, accept, noScan); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := report.JUnit([]report.Suite{{Corpus: "testdata/acp", Outcomes: outcomes, Accept: accept}})
	if diff := cmp.Diff(string(want), string(b)); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if !bytes.Contains(b, []byte(`accept with: acpsnap update -dir testdata/acp -run &#39;^tool-bash$&#39;`)) {
		t.Errorf("the failure does not carry its accept command with -dir:\n%s", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the report's folder holds %d entries, want only the report (no temporary file left)", len(entries))
	}
}

func TestWriteJUnitNoFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "report.xml")
	err := writeJUnit(&runFlags{junit: path, dir: "snapshots"}, outcomes, func(check.Outcome) string { return "" }, noScan)
	if err == nil || !strings.Contains(err.Error(), "write junit report") {
		t.Errorf("writeJUnit into a missing folder = %v, want an error saying what was written", err)
	}
}

// TestWriteJUnitScanned: a report holding a secret value (here in an
// accept command the scan never saw) is not written, and the error names
// the file and line, never the value.
func TestWriteJUnitScanned(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.xml")
	leaks := secrets.New(map[string]string{"X_API_KEY": "sk-test-0123456789"}, nil)
	accept := func(check.Outcome) string { return "acpsnap record -agent 'x --key sk-test-0123456789'" }
	err := writeJUnit(&runFlags{junit: path, dir: "snapshots"}, outcomes, accept, leaks.Check)
	if err == nil || !strings.Contains(err.Error(), path+":") || !strings.Contains(err.Error(), "holds the value of X_API_KEY") || strings.Contains(err.Error(), "sk-test") {
		t.Errorf("writeJUnit = %v, want the place named without the value", err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("the report was written: %v", err)
	}
}

// fixedAccept is the accept command of a failed outcome, for printer tests.
func fixedAccept(o check.Outcome) string {
	if o.Accept == "" {
		return ""
	}
	return "acpsnap " + string(o.Accept) + " -run '^" + o.Name + "$'"
}

func TestPrinterJSON(t *testing.T) {
	var buf bytes.Buffer
	p := &printer{w: &buf, json: true, accept: fixedAccept}
	wrote := check.Outcome{Name: "text-turn", Status: check.Passed, Duration: 3*time.Millisecond + 4567*time.Nanosecond,
		Wrote: []string{"stdout.expected.jsonl", "session.jsonl"}}
	for _, o := range append(outcomes, wrote) {
		p.outcome(o)
	}
	want := []string{
		`{"name":"text-turn","status":"passed","durationMs":1500}`,
		`{"name":"tool-bash","status":"failed","durationMs":250,"reason":"stdout differs","diff":"--- want\n+++ got\n-a <b> & \"c\"\n+d\n","accept":"acpsnap update -run '^tool-bash$'"}`,
		`{"name":"tool-bash-client-terminal","status":"skipped","durationMs":0,"reason":"platform: posix"}`,
		`{"name":"text-turn","status":"passed","durationMs":3.005,"wrote":["stdout.expected.jsonl","session.jsonl"]}`,
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	// Compare values, not bytes: the escaping of <, > and & is not the contract.
	if diff := cmp.Diff(decodeLines(t, want), decodeLines(t, lines)); diff != "" {
		t.Errorf("-json lines, decoded (-want +got):\n%s", diff)
	}
	for i, line := range lines {
		var o jsonOutcome
		dec := json.NewDecoder(strings.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil || dec.More() {
			t.Errorf("line %d is not one jsonOutcome: %v", i+1, err)
		}
	}
}

// decodeLines decodes each line as one JSON object.
func decodeLines(t *testing.T, lines []string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d: %v: %s", i+1, err, l)
		}
		out = append(out, m)
	}
	return out
}

func TestPrinterText(t *testing.T) {
	var buf bytes.Buffer
	p := &printer{w: &buf, accept: fixedAccept}
	for _, o := range outcomes {
		p.outcome(o)
	}
	p.outcome(check.Outcome{Name: "text-turn", Status: check.Passed, Duration: 3 * time.Millisecond, Wrote: []string{"stdout.expected.jsonl"}})
	want := `ok    text-turn 1.5s
FAIL  tool-bash 250ms: stdout differs
diff (-want +got):
  --- want
  +++ got
  -a <b> & "c"
  +d
  accept with: acpsnap update -run '^tool-bash$'
skip  tool-bash-client-terminal (platform: posix)
wrote text-turn 3ms: stdout.expected.jsonl
`
	if diff := cmp.Diff(want, buf.String()); diff != "" {
		t.Errorf("progress lines (-want +got):\n%s", diff)
	}
}

func TestAcceptCommand(t *testing.T) {
	type testCase struct {
		name  string
		o     check.Outcome
		flags runFlags
		want  string
	}
	failed := check.Outcome{Name: "text-turn", Status: check.Failed, Accept: check.Update}
	tests := []testCase{
		{"nothing to accept", check.Outcome{Name: "text-turn", Status: check.Failed}, runFlags{dir: "snapshots"}, ""},
		{"default corpus", failed, runFlags{dir: "snapshots"}, `acpsnap update -run '^text-turn$'`},
		{"refresh", check.Outcome{Name: "multi-turn", Accept: check.Refresh}, runFlags{dir: "snapshots"}, `acpsnap refresh -run '^multi-turn$'`},
		{"other corpus", failed, runFlags{dir: "testdata/corpus"}, `acpsnap update -dir testdata/corpus -run '^text-turn$'`},
		{"corpus with a blank", failed, runFlags{dir: "my corpus"}, `acpsnap update -dir 'my corpus' -run '^text-turn$'`},
		{"own agent", failed, runFlags{dir: "snapshots", agent: `node 'my agent.js' --stdio`},
			`acpsnap update -agent 'node '\''my agent.js'\'' --stdio' -run '^text-turn$'`},
		{"other flags are not repeated", failed, runFlags{dir: "snapshots", run: "turn", shard: "1/2", json: true, parallel: 3},
			`acpsnap update -run '^text-turn$'`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := acceptCommand(tc.o, &tc.flags)
			if got != tc.want {
				t.Errorf("acceptCommand = %s\n want %s", got, tc.want)
			}
			if got == "" {
				return
			}
			// The command splits back into the flags it was made from.
			words, err := splitCommand(got)
			if err != nil {
				t.Fatal(err)
			}
			if tc.flags.agent != "" {
				if i := indexOf(words, "-agent"); i < 0 || words[i+1] != tc.flags.agent {
					t.Errorf("-agent does not split back to %q: %q", tc.flags.agent, words)
				}
			}
			if words[len(words)-1] != "^"+tc.o.Name+"$" {
				t.Errorf("-run does not split back to the scenario: %q", words)
			}
		})
	}
}

func indexOf(words []string, w string) int {
	for i, x := range words {
		if x == w && i+1 < len(words) {
			return i
		}
	}
	return -1
}

// TestInNameOrder: outcomes finishing in any order print in name order,
// each as soon as every one before it came; flush prints the rest.
func TestInNameOrder(t *testing.T) {
	var got []string
	o := inNameOrder([]string{"a", "b", "c", "d"}, func(out check.Outcome) { got = append(got, out.Name) })
	o.done(check.Outcome{Name: "c"})
	if len(got) != 0 {
		t.Fatalf("printed %v before a", got)
	}
	o.done(check.Outcome{Name: "a"})
	o.done(check.Outcome{Name: "b"})
	if d := cmp.Diff([]string{"a", "b", "c"}, got); d != "" {
		t.Errorf("after a, b, c (-want +got):\n%s", d)
	}
	o.flush([]check.Outcome{{Name: "a"}, {Name: "b"}, {Name: "c"}, {Name: "d", Status: check.Skipped}})
	if d := cmp.Diff([]string{"a", "b", "c", "d"}, got); d != "" {
		t.Errorf("after flush (-want +got):\n%s", d)
	}
}

func noScan(string, []byte) error { return nil }
