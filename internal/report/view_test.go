package report

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestHTMLCapsAndVisible: the HTML report shows every string of a
// transcript made visible (tag characters, zero-width characters and
// escapes in a tool's kind and status, a mode id, a stop reason, a session
// id, a scenario name), and caps message text and the number of items and
// calls: 32 MB of text once made an 80 MiB page, 20,000 tool calls 47 MiB.
func TestHTMLCapsAndVisible(t *testing.T) {
	const hidden = "\U000e0041\U000e0042\u200b\u2060\x1b]0;x\x07"
	var items []Item
	for i := range 20000 {
		items = append(items, Item{Kind: ToolCall, Tool: &Tool{Kind: "read" + hidden, Title: fmt.Sprint("Read ", i), Status: "completed" + hidden, Input: "{}"}})
	}
	big := &Transcript{Name: "flood", Source: "run", Turns: []Turn{
		{Session: "s" + hidden, Prompt: "go" + hidden, Items: []Item{{Kind: Message, Text: strings.Repeat("word ", 32<<20/5)}, {Kind: Mode, Text: "code" + hidden}}, Stop: "end" + hidden},
		{Items: items},
	}}
	for i := range 3000 {
		big.Calls = append(big.Calls, Call{N: i + 1, Log: "session.jsonl", Request: "r" + hidden, Status: "200", Response: "ok"})
	}
	r := Page{Scenarios: []Scenario{{Name: "flood" + hidden, Status: "failed", Duration: time.Second, Reason: "r" + hidden, Transcript: big}}}
	var sb strings.Builder
	if err := WriteHTML(&sb, r); err != nil {
		t.Fatal(err)
	}
	page := sb.String()
	if len(page) > 4<<20 {
		t.Errorf("the page is %d bytes, want at most 4 MiB", len(page))
	}
	for _, raw := range []string{"\U000e0041", "\u200b", "\u2060", "\x1b", "\x07"} {
		if strings.Contains(page, raw) {
			t.Errorf("%q reaches the page raw", raw)
		}
	}
	for _, want := range []string{
		"more not shown",
		fmt.Sprintf("… %d more items not shown (the report shows %d per scenario)", 20000+2-MaxItems, MaxItems),
		fmt.Sprintf("… %d more model calls not shown", 3000-MaxCallsShown),
		`read\ue0041\ue0042\u200b\u2060\x1b]0;x\x07`, `code\ue0041`, `end\ue0041`, `flood\ue0041`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
