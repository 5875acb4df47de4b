package check

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/conformance"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestWireLines places each message the client sent before the first
// stdout line recorded after it, and numbers the incarnations.
func TestWireLines(t *testing.T) {
	res := &harness.Result{
		Stdout:       [][]byte{[]byte("a1"), []byte("a2"), []byte("a3")},
		Sent:         []harness.Sent{{Line: []byte("c1")}, {Line: []byte("c2"), After: 1}, {Line: []byte("c3"), After: 2, Incarnation: 1}, {Line: []byte("c4"), After: 3, Incarnation: 1}},
		Incarnations: []int{0, 2},
	}
	var got []string
	for _, l := range wireLines(res) {
		got = append(got, fmt.Sprintf("%s/%d/%d/%v", l.Raw, l.N, l.Start, l.Agent))
	}
	want := []string{"c1/0/0/false", "a1/1/0/true", "c2/0/0/false", "a2/2/0/true", "c3/0/1/false", "a3/3/1/true", "c4/0/1/false"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wireLines (-want +got):\n%s", diff)
	}
}

// TestBrokenMessage: a violation names the rule, the stdout line (as
// normalized, and the values of the message as its tokens), the spec's
// words and how to acknowledge it; an acknowledged rule fails nothing.
func TestBrokenMessage(t *testing.T) {
	res := &harness.Result{
		Stdout: [][]byte{
			[]byte(`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"sess-9f3"}}`),
			[]byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-9f3","update":{"sessionUpdate":"tool_call_update","toolCallId":"call-77"}}}`),
		},
		Sent:         []harness.Sent{{Line: []byte(`{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)}},
		Incarnations: []int{0},
	}
	got := &scenario.Transcript{Stdout: []byte(`{"id":1,"jsonrpc":"2.0","result":{"sessionId":"{{session:1}}"}}` + "\n" +
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{session:1}}","update":{"sessionUpdate":"tool_call_update","toolCallId":"{{toolCall:1}}"}}}` + "\n")}
	err := conformanceError(res, got, nil)
	if err == nil {
		t.Fatal("no violation")
	}
	for _, want := range []string{
		"the agent breaks the Agent Client Protocol (1 violation(s); no mode writes a fixture of it):",
		`stdout line 2: rule announced-tool-call: tool_call_update of tool call "{{toolCall:1}}", which no tool_call (nor session/request_permission) of session "{{session:1}}" announced before`,
		`    {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{session:1}}"`,
		`announced-tool-call, the spec: "ToolCallUpdate: An update to an existing tool call.`,
		"conformance: {acknowledge: [{rule: announced-tool-call, reason: …}]}",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the message lacks %q:\n%s", want, err)
		}
	}
	if strings.Contains(err.Error(), "sess-9f3") || strings.Contains(err.Error(), "call-77") {
		t.Errorf("the message names a run's own id:\n%s", err)
	}
	acked := &scenario.Corpus{Conformance: scenario.CorpusConformance{Acknowledge: []scenario.Acknowledgement{{Rule: "announced-tool-call", Reason: "known"}}}}
	if err := conformanceError(res, got, acked); err != nil {
		t.Errorf("an acknowledged rule failed the run: %v", err)
	}
	if conformance.Lookup("announced-tool-call") == nil {
		t.Error("the rule is gone")
	}
}

// TestBrokenMessageCapped: past maxShown violations the rest are counted,
// each rule's words shown once.
func TestBrokenMessageCapped(t *testing.T) {
	var stdout [][]byte
	for range maxShown + 3 {
		stdout = append(stdout, []byte(`{"jsonrpc":"1.0"}`))
	}
	err := conformanceError(&harness.Result{Stdout: stdout, Incarnations: []int{0}}, nil, nil)
	if err == nil {
		t.Fatal("no violation")
	}
	msg := err.Error()
	if !strings.Contains(msg, "(11 violation(s);") || !strings.Contains(msg, "\n  … and 3 more") || strings.Count(msg, "jsonrpc, the spec:") != 1 {
		t.Errorf("the message does not cap at %d, or repeats the spec's words:\n%s", maxShown, msg)
	}
}

// TestCheckWire: the wire checked in the background finds what
// protocolBreaks finds, reads its own copy of the lines' array (normalizing
// empties the Result's as it goes), and a stdout past maxOverlapped is left
// to protocolBreaks.
func TestCheckWire(t *testing.T) {
	stdout := [][]byte{[]byte(`{"jsonrpc":"1.0"}`), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)}
	w := checkWire(stdout, nil, []int{0}, nil)
	if w == nil {
		t.Fatal("a small stdout was not checked in the background")
	}
	stdout[0], stdout[1] = nil, nil // as normalizeLive leaves the array
	b := w.wait()
	want := protocolBreaks(&harness.Result{Stdout: [][]byte{[]byte(`{"jsonrpc":"1.0"}`), []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`)}, Incarnations: []int{0}}, nil)
	if b == nil || want == nil || b.Error() != want.Error() {
		t.Errorf("in the background:\n%v\nwant:\n%v", b, want)
	}
	big := [][]byte{make([]byte, maxOverlapped/2), make([]byte, maxOverlapped/2+1)}
	if checkWire(big, nil, []int{0}, nil) != nil {
		t.Errorf("a stdout of %d bytes was checked in the background, past maxOverlapped (%d)", maxOverlapped+1, maxOverlapped)
	}
}
