package anthropic

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/wire/wiretest"
	"github.com/acpsnap/acpsnap/model"
)

// TestDecodeRecorded parses a stream as the API sends it: CRLF line ends,
// a ping, a comment, usage split between message_start and message_delta.
func TestDecodeRecorded(t *testing.T) {
	got := wiretest.DecodeFile(t, Decode, "../sse/testdata/anthropic-messages.sse")
	want := []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: model.BlockText},
		{Type: model.TextDelta, Index: 0, Text: "Hi"},
		{Type: model.BlockEnd, Index: 0},
		{Type: model.Usage, InputTokens: 25, OutputTokens: 2},
		{Type: model.Finish, Reason: model.FinishStop},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}
