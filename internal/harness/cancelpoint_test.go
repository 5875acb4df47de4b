package harness

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
	"github.com/acpsnap/acpsnap/model"
)

// TestCarried: in every dialect, the content of a stream's first K events
// grows with K from nothing to the whole answer's text and reasoning, each
// a prefix of the whole: the cancel point of hangAfter K awaits exactly
// what the agent got.
func TestCarried(t *testing.T) {
	chunks := []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: model.BlockReasoning}, {Type: model.ReasoningDelta, Index: 0, Text: "Let me "},
		{Type: model.ReasoningDelta, Index: 0, Text: "think."}, {Type: model.BlockEnd, Index: 0},
		{Type: model.BlockStart, Index: 1, BlockType: model.BlockText}, {Type: model.TextDelta, Index: 1, Text: "Once upon a time"},
		{Type: model.TextDelta, Index: 1, Text: ", the end."}, {Type: model.BlockEnd, Index: 1},
		{Type: model.BlockStart, Index: 2, BlockType: model.BlockToolCall},
		{Type: model.ToolCallDelta, Index: 2, ID: "call_1", Name: "read", ArgumentsDelta: `{"path":"a"}`}, {Type: model.BlockEnd, Index: 2},
		{Type: model.Usage, InputTokens: 3, OutputTokens: 5}, {Type: model.Finish, Reason: model.FinishToolCalls},
	}
	whole := content{text: "Once upon a time, the end.", thought: "Let me think."}
	for _, d := range dialect.Table {
		t.Run(d.Name, func(t *testing.T) {
			var data [][]byte
			for _, e := range d.Codec.Render(wire.Response{ID: "r1", Model: "m", Chunks: chunks}) {
				data = append(data, []byte(e.Data()))
			}
			if got := carried(d.Name, nil); got != (content{}) {
				t.Errorf("hangAfter 0 awaits %s, want nothing", got)
			}
			prev := content{}
			for k := 1; k <= len(data); k++ {
				got := carried(d.Name, data[:k])
				if !strings.HasPrefix(whole.text, got.text) || !strings.HasPrefix(whole.thought, got.thought) ||
					!strings.HasPrefix(got.text, prev.text) || !strings.HasPrefix(got.thought, prev.thought) {
					t.Errorf("hangAfter %d awaits %s after %s for %d; want a growing prefix of %s", k, got, prev, k-1, whole)
				}
				prev = got
			}
			if diff := cmp.Diff(whole, prev, cmp.AllowUnexported(content{})); diff != "" {
				t.Errorf("the whole stream carries (-want +got):\n%s", diff)
			}
		})
	}
}

// TestShown: the text and reasoning an agent's stdout shows, each
// concatenated over its chunks, whatever else the lines hold; covers
// compares whole texts, whitespace aside, so a split or merged chunk, a
// trimmed or rewrapped one, is the same content.
func TestShown(t *testing.T) {
	lines := []string{
		`{"id":1,"jsonrpc":"2.0","result":{"sessionId":"s"}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"Let me"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Once up"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"usage_update","used":3,"size":100}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":" think."}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"image","data":"x"}}}}`,
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"on a\ntime"}}}}`,
		`not json`,
	}
	var raw [][]byte
	for _, l := range lines {
		raw = append(raw, []byte(l))
	}
	got := shown(raw)
	if diff := cmp.Diff(content{text: "Once upon a\ntime", thought: "Let me think."}, got, cmp.AllowUnexported(content{})); diff != "" {
		t.Errorf("shown (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		want content
		ok   bool
	}{
		{content{}, true},
		{content{text: "Once upon a time"}, true},
		{content{text: "Once upon a time", thought: "Let me think."}, true},
		{content{text: "Once upon a time, the end."}, false},
		{content{thought: "Let me think more."}, false},
	} {
		if got.covers(c.want) != c.ok {
			t.Errorf("%s covers %s: %v, want %v", got, c.want, !c.ok, c.ok)
		}
	}
}
