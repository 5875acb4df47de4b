package agent

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/model"
)

func TestReplyAssemblesChunks(t *testing.T) {
	type testCase struct {
		name   string
		chunks []model.Chunk
		want   model.Message
	}
	for _, tc := range []testCase{
		{name: "text and reasoning", chunks: []model.Chunk{
			{Type: model.BlockStart, Index: 0, BlockType: model.BlockReasoning},
			{Type: model.ReasoningDelta, Index: 0, Text: "a"},
			{Type: model.ReasoningDelta, Index: 0, Text: "b"},
			{Type: model.BlockEnd, Index: 0},
			{Type: model.BlockStart, Index: 1, BlockType: model.BlockText},
			{Type: model.TextDelta, Index: 1, Text: "x"},
			{Type: model.TextDelta, Index: 1, Text: "y"},
			{Type: model.Finish, Reason: model.FinishStop},
		}, want: model.Message{Role: "assistant", Content: "xy", Reasoning: "ab"}},
		{name: "two tool calls in pieces", chunks: append(textChunks("t", "")[:3:3], callChunks(
			model.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`},
			model.ToolCall{ID: "c2", Name: "bash", Arguments: `{"command":"ls"}`})...),
			want: model.Message{Role: "assistant", Content: "t", ToolCalls: []model.ToolCall{
				{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`},
				{ID: "c2", Name: "bash", Arguments: `{"command":"ls"}`}}}},
		{name: "two calls interleaved across five blocks", chunks: interleavedCalls(),
			want: model.Message{Role: "assistant", ToolCalls: []model.ToolCall{
				{ID: "c1", Name: "read_file", Arguments: `{"path":"a.txt"}`},
				{ID: "c2", Name: "list_dir", Arguments: `{"path":"d"}`}}}},
		{name: "deltas without id grouped by block", chunks: []model.Chunk{
			{Type: model.ToolCallDelta, Index: 0, Name: "bash", ArgumentsDelta: `{"command":`},
			{Type: model.ToolCallDelta, Index: 0, ArgumentsDelta: `"ls"}`},
			{Type: model.ToolCallDelta, Index: 1, Name: "list_dir", ArgumentsDelta: `{}`},
			{Type: model.Finish, Reason: model.FinishToolCalls},
		}, want: model.Message{Role: "assistant", ToolCalls: []model.ToolCall{
			{Name: "bash", Arguments: `{"command":"ls"}`},
			{Name: "list_dir", Arguments: `{}`}}}},
		{name: "an id after id-less deltas of the block", chunks: []model.Chunk{
			{Type: model.ToolCallDelta, Index: 0, Name: "bash", ArgumentsDelta: `{"command":`},
			{Type: model.ToolCallDelta, Index: 0, ID: "c1", ArgumentsDelta: `"ls"}`},
			{Type: model.ToolCallDelta, Index: 1, ID: "c1", ArgumentsDelta: ``},
			{Type: model.Finish, Reason: model.FinishToolCalls},
		}, want: model.Message{Role: "assistant", ToolCalls: []model.ToolCall{
			{ID: "c1", Name: "bash", Arguments: `{"command":"ls"}`}}}},
		{name: "max-tokens drops tool calls", chunks: []model.Chunk{
			{Type: model.ToolCallDelta, Index: 0, ID: "c1", Name: "bash", ArgumentsDelta: `{"comm`},
			{Type: model.Finish, Reason: model.FinishMaxTokens},
		}, want: model.Message{Role: "assistant"}},
		{name: "chunks after finish are ignored", chunks: []model.Chunk{
			{Type: model.TextDelta, Text: "a"},
			{Type: model.Finish, Reason: model.FinishStop},
			{Type: model.TextDelta, Text: "b"},
		}, want: model.Message{Role: "assistant", Content: "a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r reply
			for _, c := range tc.chunks {
				r.add(c)
			}
			if diff := cmp.Diff(tc.want, r.message()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

// interleavedCalls is a message whose two tool calls' deltas alternate, as
// the deepseek decoder renders it: a new block at every switch (five in
// all), the id on every delta, the name only on a call's first.
func interleavedCalls() []model.Chunk {
	var cs []model.Chunk
	for i, d := range []struct{ id, name, args string }{
		{"c1", "read_file", `{"pa`}, // block 0
		{"c2", "list_dir", `{"pa`},  // block 1
		{"c1", "", `th":"a.txt"}`},  // block 2
		{"c2", "", `th":`},          // block 3
		{"c2", "", `"d"}`},          // block 3
		{"c1", "", ``},              // block 4
	} {
		if i > 0 && d.id == cs[len(cs)-1].ID {
			cs = append(cs, model.Chunk{Type: model.ToolCallDelta, Index: cs[len(cs)-1].Index, ID: d.id, Name: d.name, ArgumentsDelta: d.args})
			continue
		}
		block := 0
		if i > 0 {
			block = cs[len(cs)-1].Index + 1
			cs = append(cs, model.Chunk{Type: model.BlockEnd, Index: block - 1})
		}
		cs = append(cs,
			model.Chunk{Type: model.BlockStart, Index: block, BlockType: model.BlockToolCall},
			model.Chunk{Type: model.ToolCallDelta, Index: block, ID: d.id, Name: d.name, ArgumentsDelta: d.args})
	}
	return append(cs, model.Chunk{Type: model.BlockEnd, Index: cs[len(cs)-1].Index}, model.Chunk{Type: model.Finish, Reason: model.FinishToolCalls})
}

// TestInterleavedToolCallsRunOnce: a message whose two calls span five
// blocks runs two tools, and the next request carries each call and its
// result once.
func TestInterleavedToolCallsRunOnce(t *testing.T) {
	cs := interleavedCalls()
	if n := blockCount(cs); n != 5 {
		t.Fatalf("the message has %d blocks, want 5", n)
	}
	sc := newScript(chunks(cs...), say("ok"))
	r := newRig(t, sc.provider(), nil, nil)
	seed(t, r.cwd, map[string]string{"a.txt": "A", "d/x": ""})
	sid := r.session(acp.ClientCapabilities{})
	r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
	reqs := sc.requests()
	if diff := cmp.Diff([]string{"c1: A", "c2: x\n"}, toolMessages(reqs)); diff != "" {
		t.Errorf("tool messages (-want +got):\n%s", diff)
	}
	var calls []model.ToolCall
	for _, m := range reqs[len(reqs)-1].Messages {
		calls = append(calls, m.ToolCalls...)
	}
	want := []model.ToolCall{{ID: "c1", Name: "read_file", Arguments: `{"path":"a.txt"}`}, {ID: "c2", Name: "list_dir", Arguments: `{"path":"d"}`}}
	if diff := cmp.Diff(want, calls); diff != "" {
		t.Errorf("tool calls sent back (-want +got):\n%s", diff)
	}
}

func blockCount(cs []model.Chunk) int {
	n := 0
	for _, c := range cs {
		if c.Type == model.BlockStart {
			n++
		}
	}
	return n
}

func TestLines(t *testing.T) {
	type testCase struct {
		text          string
		offset, limit int
		want          string
		wantErr       bool
	}
	for _, tc := range []testCase{
		{"a\nb\nc\n", 0, 0, "a\nb\nc\n", false},
		{"a\nb\nc\n", 2, 0, "b\nc\n", false},
		{"a\nb\nc", 2, 5, "b\nc", false},
		{"a\nb\nc\n", 1, 2, "a\nb\n", false},
		{"a\nb\nc\n", 4, 0, "", true},
		{"", 0, 3, "", false},
	} {
		got, err := lines(tc.text, tc.offset, tc.limit)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("lines(%q, %d, %d) = %q, %v; want %q, error %v", tc.text, tc.offset, tc.limit, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestResolve(t *testing.T) {
	s := &session{cwd: "/work/cwd"}
	type testCase struct {
		path, want string
		wantErr    bool
	}
	for _, tc := range []testCase{
		{"a.txt", "/work/cwd/a.txt", false},
		{"./d/../a.txt", "/work/cwd/a.txt", false},
		{".", "/work/cwd", false},
		{"/work/cwd/x", "/work/cwd/x", false},
		{"..", "", true},
		{"../cwd2/x", "", true},
		{"/work/cwd2", "", true},
		{"d/../../x", "", true},
		{"..foo", "/work/cwd/..foo", false},
		{"", "", true},
	} {
		got, err := s.resolve(tc.path)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("resolve(%q) = %q, %v; want %q, error %v", tc.path, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestPromptText(t *testing.T) {
	blocks := []acp.ContentBlock{
		acp.TextBlock("look at this"),
		acp.ResourceLinkBlock("a.txt", "file:///w/a.txt"),
		acp.ResourceBlock(acp.EmbeddedResourceResource{TextResourceContents: &acp.TextResourceContents{Uri: "file:///w/b.txt", Text: "B"}}),
		acp.ImageBlock("AAAA", "image/png"),
	}
	want := "look at this\n[resource a.txt: file:///w/a.txt]\n[resource file:///w/b.txt]\nB\n[image omitted]"
	if diff := cmp.Diff(want, promptText(blocks)); diff != "" {
		t.Errorf("promptText (-want +got):\n%s", diff)
	}
}
