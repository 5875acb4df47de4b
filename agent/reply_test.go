package agent

import (
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/llmreplay"
)

func TestReplyAssemblesChunks(t *testing.T) {
	type testCase struct {
		name   string
		chunks []llmreplay.Chunk
		want   Message
	}
	for _, tc := range []testCase{
		{name: "text and reasoning", chunks: []llmreplay.Chunk{
			{Type: llmreplay.BlockStart, Index: 0, BlockType: llmreplay.BlockReasoning},
			{Type: llmreplay.ReasoningDelta, Index: 0, Text: "a"},
			{Type: llmreplay.ReasoningDelta, Index: 0, Text: "b"},
			{Type: llmreplay.BlockEnd, Index: 0},
			{Type: llmreplay.BlockStart, Index: 1, BlockType: llmreplay.BlockText},
			{Type: llmreplay.TextDelta, Index: 1, Text: "x"},
			{Type: llmreplay.TextDelta, Index: 1, Text: "y"},
			{Type: llmreplay.Finish, Reason: llmreplay.FinishStop},
		}, want: Message{Role: "assistant", Content: "xy", Reasoning: "ab"}},
		{name: "two tool calls in pieces", chunks: append(textChunks("t", "")[:3:3], callChunks(
			ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`},
			ToolCall{ID: "c2", Name: "bash", Arguments: `{"command":"ls"}`})...),
			want: Message{Role: "assistant", Content: "t", ToolCalls: []ToolCall{
				{ID: "c1", Name: "read_file", Arguments: `{"path":"a"}`},
				{ID: "c2", Name: "bash", Arguments: `{"command":"ls"}`}}}},
		{name: "max-tokens drops tool calls", chunks: []llmreplay.Chunk{
			{Type: llmreplay.ToolCallDelta, Index: 0, ID: "c1", Name: "bash", ArgumentsDelta: `{"comm`},
			{Type: llmreplay.Finish, Reason: llmreplay.FinishMaxTokens},
		}, want: Message{Role: "assistant"}},
		{name: "chunks after finish are ignored", chunks: []llmreplay.Chunk{
			{Type: llmreplay.TextDelta, Text: "a"},
			{Type: llmreplay.Finish, Reason: llmreplay.FinishStop},
			{Type: llmreplay.TextDelta, Text: "b"},
		}, want: Message{Role: "assistant", Content: "a"}},
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
