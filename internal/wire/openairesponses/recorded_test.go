package openairesponses

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/wire/wiretest"
	"github.com/acpsnap/acpsnap/model"
)

// TestDecodeRecorded parses a stream whose server sent no
// output_item.done: the open item is closed at response.completed.
func TestDecodeRecorded(t *testing.T) {
	got := wiretest.DecodeFile(t, Decode, "../sse/testdata/openai-responses.sse")
	want := []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: model.BlockText},
		{Type: model.TextDelta, Index: 0, Text: "Hi"},
		{Type: model.BlockEnd, Index: 0},
		{Type: model.Usage, InputTokens: 5, OutputTokens: 1},
		{Type: model.Finish, Reason: model.FinishStop},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}
