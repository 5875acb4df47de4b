package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestChanges groups outcomes by their change: a pin or request drift, or
// the lines the differing files lost and gained wherever they are; the
// commands are one per mode the scenarios need.
func TestChanges(t *testing.T) {
	stdout := func(name, key string) check.Outcome {
		return check.Outcome{Name: name, Status: check.Failed, Accept: check.Update, Change: key, ChangeFiles: []string{scenario.StdoutFile}}
	}
	var c Changes
	firsts := []string{
		c.Add(stdout("a", "stdout.expected.jsonl\n+thought\n")),
		// Two prompts, a thought in each, elsewhere: the same change.
		c.Add(stdout("b", "stdout.expected.jsonl\n+thought\n")),
		// Another line gained as well: another change.
		c.Add(stdout("c", "stdout.expected.jsonl\n+other\n+thought\n")),
		c.Add(check.Outcome{Name: "d", Status: check.Failed, Accept: check.Refresh, PinDrift: "$.system: recorded a, request b\n", PinFiles: []string{"$.system"}}),
		c.Add(check.Outcome{Name: "e", Status: check.Failed, Accept: check.Record, PinDrift: "$.system: recorded a, request b\n", PinFiles: []string{"$.system"}}),
		c.Add(check.Outcome{Name: "f", Status: check.Failed, Accept: check.Refresh, PinDrift: "$.system: recorded a, request b\n", PinFiles: []string{"$.system"}}),
		c.Add(check.Outcome{Name: "g", Status: check.Failed, Accept: check.Update}),
	}
	if diff := cmp.Diff([]string{"", "a", "", "", "d", "d", ""}, firsts); diff != "" {
		t.Errorf("Add (-want +got):\n%s", diff)
	}
	shared := c.Shared()
	var got []string
	for _, ch := range shared {
		got = append(got, ch.String())
		for _, cmd := range ch.Commands() {
			got = append(got, string(cmd.Mode)+" "+cmd.Pattern)
		}
	}
	want := []string{
		"stdout.expected.jsonl changed the same way in 2 scenarios", "update ^(a|b)$",
		"$.system changed; 3 scenario(s) affected", "refresh ^(d|f)$", "record ^e$",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Shared (-want +got):\n%s", diff)
	}
	reason, rest := SameChange(check.Outcome{Name: "b", ChangeFiles: []string{scenario.StdoutFile}}, "a")
	if want := "the same change of stdout.expected.jsonl as a (its diff is shown there)"; reason != want || rest != "" {
		t.Errorf("SameChange = %q, %q; want %q and nothing left", reason, rest, want)
	}
}
