package check

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/probe"
	"github.com/acpsnap/acpsnap/internal/proxy"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestLineChange: a change is the lines the differing files lost and
// gained wherever they are, so two scenarios that gained a thought in
// every prompt share it, and one that gained another line too does not.
func TestLineChange(t *testing.T) {
	thought := `{"method":"session/update","params":{"update":{"sessionUpdate":"agent_thought_chunk"}}}`
	tr := func(lines ...string) *scenario.Transcript {
		var b []byte
		for _, l := range lines {
			b = append(b, l+"\n"...)
		}
		return &scenario.Transcript{Stdout: b}
	}
	key := func(want, got *scenario.Transcript) string {
		k, files := lineChange(want, got, []fileDiff{{name: scenario.StdoutFile}})
		if diff := cmp.Diff([]string{scenario.StdoutFile}, files); diff != "" {
			t.Errorf("files (-want +got):\n%s", diff)
		}
		return k
	}
	a := key(tr("init", "prompt", "end"), tr("init", "prompt", thought, "end"))
	b := key(tr("x", "p1", "e1", "p2", "e2"), tr("x", "p1", thought, "e1", "p2", thought, "e2"))
	c := key(tr("init", "end"), tr("init", thought, "other", "end"))
	if a != b || a == c || a == "" {
		t.Errorf("keys: a %q, b %q, c %q; want a == b != c", a, b, c)
	}
}

func TestPointer(t *testing.T) {
	for path, want := range map[string]string{
		"$.metadata.trace_id":    "/metadata/trace_id",
		`$.messages[0]["a/b~c"]`: "/messages/0/a~1b~0c",
		"$.input[1→2].id":        "/input/2/id",
		"$":                      "",
		`$.x["unterminated`:      `/x/["unterminated`,
	} {
		if got := pointer(path); got != want {
			t.Errorf("pointer(%q) = %q, want %q", path, got, want)
		}
	}
	vary := driftValues([]proxy.Change{{Path: "$.metadata.trace_id", Recorded: `"17"`, Request: `"42"`}, {Path: "header:x-request-id", Recorded: `"a"`, Request: `"b"`}})
	var got []string
	for _, v := range vary {
		got = append(got, v.Path+" "+v.Suggest.Key+" "+v.Suggest.Item)
	}
	want := []string{`$.metadata.trace_id scrub { pattern: '("trace_id":\s*")\d+(")', replace: '${1}{{trace_id}}${2}' }`, `header:x-request-id model.ignore "header:x-request-id"`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("driftValues (-want +got):\n%s", diff)
	}
	if got := driftValues([]proxy.Change{{Path: "path", Recorded: `"/a"`, Request: `"/b"`}}); got != nil {
		t.Errorf("driftValues of a changed path = %v, want nil", got)
	}
	rec := `{"type":"session"}` + "\n" + `{"data":{"body":{"trace":"1"},"call":1},"type":"model/request"}` + "\n" + `{"data":{"call":1},"type":"model/end"}` + "\n"
	rep := strings.Replace(rec, `"trace":"1"`, `"trace":"2"`, 1)
	if got := requestValues([]byte(rec), []byte(rep)); len(got) != 1 || got[0].At != "call 1" || got[0].Path != "$.trace" {
		t.Errorf("requestValues = %+v, want call 1 $.trace", got)
	}
	if got := requestValues([]byte(rec), []byte(strings.Replace(rep, "model/end", "model/status", 1))); got != nil {
		t.Errorf("requestValues with another event changed = %+v, want nil", got)
	}
}

// TestVolatileMessage names each value and what settles it, or, when no
// rule can be written, says to scrub it.
func TestVolatileMessage(t *testing.T) {
	with := volatileMessage(driftValues([]proxy.Change{{Path: "$.metadata.trace_id", Recorded: `"17"`, Request: `"42"`}}))
	without := volatileMessage([]probe.Variance{{Path: "$.m", Values: []string{`[1]`, `[1,2]`}}})
	for _, c := range []struct{ msg, want string }{
		{with, "\n  $.metadata.trace_id: recorded \"17\", replay \"42\"\n  they are no part of the question: settle them in acpsnap.yml (acpsnap probe finds such values):\n    scrub:\n      - { pattern: "},
		{without, "\n  $.m: recorded [1], replay [1,2]\n  they are no part of the question: scrub them in acpsnap.yml (acpsnap probe finds such values and prints the rule)"},
	} {
		if !strings.Contains(c.msg, c.want) {
			t.Errorf("the message lacks %q:\n%s", c.want, c.msg)
		}
	}
}
