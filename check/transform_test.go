package check

import (
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/scenario"
)

func TestFloat(t *testing.T) {
	upd := func(session, kind, extra string) string {
		return `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"` + session + `","update":{"sessionUpdate":"` + kind + `"` + extra + `}}}` + "\n"
	}
	in := upd("s1", "usage_update", `,"used":5`) + `{"id":1,"result":{}}` + "\n" + upd("s1", "agent_message_chunk", "") +
		upd("s2", "available_commands_update", "") + upd("s1", "usage_update", `,"used":0`) + upd("s1", "usage_update", `,"used":5`)
	want := `{"id":1,"result":{}}` + "\n" + upd("s1", "agent_message_chunk", "") +
		upd("s1", "usage_update", `,"used":0`) + upd("s1", "usage_update", `,"used":5`) + upd("s2", "available_commands_update", "")
	got := string(float([]byte(in), []string{"usage_update", "available_commands_update"}))
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("float (-want +got):\n%s", d)
	}
	if again := string(float([]byte(got), []string{"usage_update", "available_commands_update"})); again != got {
		t.Errorf("float is not idempotent:\n%s", again)
	}
	reordered := upd("s1", "usage_update", `,"used":0`) + `{"id":1,"result":{}}` + "\n" + upd("s1", "agent_message_chunk", "") +
		upd("s2", "available_commands_update", "") + upd("s1", "usage_update", `,"used":5`)
	if got2 := string(float([]byte(reordered), []string{"usage_update", "available_commands_update"})); got2 != got {
		t.Errorf("another arrival order compares differently:\n%s", got2)
	}
}

func TestRulesApply(t *testing.T) {
	c := &scenario.Corpus{Scrub: []scenario.ScrubRule{{Pattern: `date is \d{4}-\d{2}-\d{2}`, Replace: "date is {{date}}"}}}
	compile(t, c.Scrub)
	m := &scenario.Manifest{Floating: []string{"usage_update"}}
	tr := &scenario.Transcript{Stdout: []byte("{\"t\":\"Today's date is 2026-12-01\"}\n"), Logs: [][]byte{[]byte("{\"s\":\"date is 2025-01-02.\"}\n")}}
	rulesFor(c, m).apply(tr)
	if string(tr.Stdout) != "{\"t\":\"Today's date is {{date}}\"}\n" || string(tr.Logs[0]) != "{\"s\":\"date is {{date}}.\"}\n" {
		t.Errorf("scrub: %q %q", tr.Stdout, tr.Logs[0])
	}
}

// compile sets the rules' regexps as LoadCorpus would.
func compile(t *testing.T, rs []scenario.ScrubRule) {
	t.Helper()
	for i := range rs {
		rs[i] = scenario.NewScrubRule(regexp.MustCompile(rs[i].Pattern), rs[i].Replace)
	}
}
