package openaichat

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/wire/wiretest"
	"github.com/acpsnap/acpsnap/model"
)

// TestDecodeRecorded parses a stream as DeepSeek sends it: an opening
// role event, reasoning, text, the finish and the usage in one event.
func TestDecodeRecorded(t *testing.T) {
	got := wiretest.DecodeFile(t, Decode, "../sse/testdata/openai-chat.sse")
	want := []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: model.BlockReasoning},
		{Type: model.ReasoningDelta, Index: 0, Text: "Let me"},
		{Type: model.BlockEnd, Index: 0},
		{Type: model.BlockStart, Index: 1, BlockType: model.BlockText},
		{Type: model.TextDelta, Index: 1, Text: "Hello"},
		{Type: model.BlockEnd, Index: 1},
		{Type: model.Usage, InputTokens: 12, OutputTokens: 3},
		{Type: model.Finish, Reason: model.FinishStop},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}
