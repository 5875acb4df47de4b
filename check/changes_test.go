package check

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/scenario"
)

// TestChanges groups outcomes by their change: a pin or request drift, or
// the lines the differing files lost and gained wherever they are; the
// commands are one per mode the scenarios need.
func TestChanges(t *testing.T) {
	thought := `{"method":"session/update","params":{"update":{"sessionUpdate":"agent_thought_chunk"}}}`
	tr := func(lines ...string) *scenario.Transcript {
		var b []byte
		for _, l := range lines {
			b = append(b, l+"\n"...)
		}
		return &scenario.Transcript{Stdout: b}
	}
	stdout := func(name string, want, got *scenario.Transcript) Outcome {
		key, files := lineChange(want, got, []fileDiff{{name: scenario.StdoutFile}})
		return Outcome{Name: name, Status: Failed, Accept: Update, Change: key, ChangeFiles: files}
	}
	var c Changes
	firsts := []string{
		c.Add(stdout("a", tr("init", "prompt", "end"), tr("init", "prompt", thought, "end"))),
		// Two prompts, a thought in each, elsewhere: the same change.
		c.Add(stdout("b", tr("x", "p1", "e1", "p2", "e2"), tr("x", "p1", thought, "e1", "p2", thought, "e2"))),
		// Another line gained as well: another change.
		c.Add(stdout("c", tr("init", "end"), tr("init", thought, "other", "end"))),
		c.Add(Outcome{Name: "d", Status: Failed, Accept: Refresh, PinDrift: "$.system: recorded a, request b\n", PinFiles: []string{"$.system"}}),
		c.Add(Outcome{Name: "e", Status: Failed, Accept: Record, PinDrift: "$.system: recorded a, request b\n", PinFiles: []string{"$.system"}}),
		c.Add(Outcome{Name: "f", Status: Failed, Accept: Refresh, PinDrift: "$.system: recorded a, request b\n", PinFiles: []string{"$.system"}}),
		c.Add(Outcome{Name: "g", Status: Failed, Accept: Update}),
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
	reason, rest := SameChange(Outcome{Name: "b", ChangeFiles: []string{scenario.StdoutFile}}, "a")
	if want := "the same change of stdout.expected.jsonl as a (its diff is shown there)"; reason != want || rest != "" {
		t.Errorf("SameChange = %q, %q; want %q and nothing left", reason, rest, want)
	}
}
