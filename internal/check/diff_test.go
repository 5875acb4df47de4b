package check

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/textdiff"
)

func TestDiffTranscripts(t *testing.T) {
	line := func(text string) []byte { return []byte(`{"type":"x","text":"` + text + `"}` + "\n") }
	want := &scenario.Transcript{Stdout: line("a"), Logs: [][]byte{line("p"), line("c1"), line("c2")}}
	got := &scenario.Transcript{Stdout: line("a"), Logs: [][]byte{line("P"), line("c1")}}
	files := diffTranscripts("dir", want, got, textdiff.Config{})
	var names []string
	for _, f := range files {
		names = append(names, f.name)
	}
	if d := cmp.Diff([]string{"session.jsonl", "session.2.jsonl"}, names); d != "" {
		t.Errorf("differing files (-want +got):\n%s", d)
	}
	if !files[0].log || string(files[0].got) != string(line("P")) || !strings.Contains(files[0].diff, "~ $.text") {
		t.Errorf("primary log diff = %+v, want the run's content and a JSON path", files[0])
	}
	if files[1].got != nil {
		t.Errorf("a child log the run no longer produced has content %q, want nil", files[1].got)
	}
	if d := cmp.Diff([]string{"session.2.jsonl"}, obsoleteLogs(want, got)); d != "" {
		t.Errorf("obsoleteLogs (-want +got):\n%s", d)
	}
	if o := obsoleteLogs(got, want); o != nil {
		t.Errorf("obsoleteLogs with a new child = %q, want none", o)
	}
}
