package check

import (
	"bytes"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/scenario"
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

// TestRedact: the redact hook sees every line of stdout and the logs,
// without its newline, after the scrub rules, and its result replaces the
// line; a last line without a newline keeps none.
func TestRedact(t *testing.T) {
	c := &scenario.Corpus{Scrub: []scenario.ScrubRule{{Pattern: `tok-\d+`, Replace: "tok-N"}}}
	compile(t, c.Scrub)
	var seen []string
	r := rulesFor(c, &scenario.Manifest{})
	r.redact = func(line []byte) []byte {
		seen = append(seen, string(line))
		return bytes.ToUpper(line)
	}
	tr := &scenario.Transcript{Stdout: []byte("a tok-1\nb\n"), Logs: [][]byte{[]byte("c tok-22\nd")}}
	r.apply(tr)
	got := []string{string(tr.Stdout), string(tr.Logs[0])}
	if d := cmp.Diff([]string{"A TOK-N\nB\n", "C TOK-N\nD"}, got); d != "" {
		t.Errorf("redacted (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"a tok-N", "b", "c tok-N", "d"}, seen); d != "" {
		t.Errorf("lines the hook saw (-want +got):\n%s", d)
	}
}

// compile sets the rules' regexps as LoadCorpus would.
func compile(t *testing.T, rs []scenario.ScrubRule) {
	t.Helper()
	for i := range rs {
		rs[i] = scenario.NewScrubRule(regexp.MustCompile(rs[i].Pattern), rs[i].Replace)
	}
}
