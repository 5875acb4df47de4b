package agentenv

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReportFile(t *testing.T) {
	dir := t.TempDir()
	want := Report{Fixtures: []FixtureReport{{Fixture: "session.jsonl", Served: 2, Left: 1}, {Fixture: "session.1.jsonl", Served: 0, Left: 0}}, Errors: []string{"REPLAY: x"}}
	for range 2 { // a second write replaces the first
		if err := WriteReport(dir, want); err != nil {
			t.Fatal(err)
		}
	}
	var got Report
	if b, err := os.ReadFile(filepath.Join(dir, ReportFile)); err != nil || json.Unmarshal(b, &got) != nil {
		t.Fatalf("read the report back: %v", err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("dir holds %d files, want only %s (no temporary left)", len(entries), ReportFile)
	}
	b, _ := os.ReadFile(filepath.Join(dir, ReportFile))
	wantJSON := `{
  "fixtures": [
    {
      "fixture": "session.jsonl",
      "served": 2,
      "left": 1
    },
    {
      "fixture": "session.1.jsonl",
      "served": 0,
      "left": 0
    }
  ],
  "errors": [
    "REPLAY: x"
  ]
}
`
	if diff := cmp.Diff(wantJSON, string(b)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
}

func TestWriteReportIntoAMissingFolder(t *testing.T) {
	if err := WriteReport(filepath.Join(t.TempDir(), "nope"), Report{}); err == nil || !strings.HasPrefix(err.Error(), "agentenv: write report: ") {
		t.Errorf("WriteReport into a missing dir = %v, want an error", err)
	}
}
