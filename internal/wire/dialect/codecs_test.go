package dialect_test

import (
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/wire/anthropic"
	"github.com/acpsnap/acpsnap/internal/wire/gemini"
	"github.com/acpsnap/acpsnap/internal/wire/openaichat"
	"github.com/acpsnap/acpsnap/internal/wire/openairesponses"
	"github.com/acpsnap/acpsnap/internal/wire/wiretest"
	"github.com/acpsnap/acpsnap/model"
)

// The codecs' tests, one test binary for the four: render then decode is
// the identity (wiretest.Test), decoding never panics (wiretest.Fuzz), and
// each decodes a stream as its API sends it.

var anthropicCodec = wiretest.Codec{
	Render: anthropic.Render, RenderHang: anthropic.RenderHang, Decode: anthropic.Decode,
	RenderJSON: anthropic.RenderJSON, DecodeJSON: anthropic.DecodeJSON, ErrorBody: anthropic.ErrorBody,
	ResponseError: func(status int, body []byte) *model.ProviderError {
		return anthropic.ResponseError(status, http.StatusText(status), body)
	},
	AlwaysUsage: true,
}

func TestRoundTripAnthropic(t *testing.T) { wiretest.Test(t, anthropicCodec) }

func FuzzDecodeAnthropic(f *testing.F) { wiretest.Fuzz(f, anthropicCodec) }

// TestDecodeRecordedAnthropic parses a stream as the API sends it: CRLF line ends,
// a ping, a comment, usage split between message_start and message_delta.
func TestDecodeRecordedAnthropic(t *testing.T) {
	got := wiretest.DecodeFile(t, anthropic.Decode, "../sse/testdata/anthropic-messages.sse")
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

var geminiCodec = wiretest.Codec{
	Render: gemini.Render, RenderHang: gemini.RenderHang, Decode: gemini.Decode,
	RenderJSON: gemini.RenderJSON, DecodeJSON: gemini.DecodeJSON, ErrorBody: gemini.ErrorBody,
	ResponseError: func(status int, body []byte) *model.ProviderError {
		return gemini.ResponseError(status, http.StatusText(status), body)
	},
	WholeCalls: true,
}

func TestRoundTripGemini(t *testing.T) { wiretest.Test(t, geminiCodec) }

func FuzzDecodeGemini(f *testing.F) { wiretest.Fuzz(f, geminiCodec) }

var openaichatCodec = wiretest.Codec{
	Render: openaichat.Render, RenderHang: openaichat.RenderHang, Decode: openaichat.Decode,
	RenderJSON: openaichat.RenderJSON, DecodeJSON: openaichat.DecodeJSON, ErrorBody: openaichat.ErrorBody,
	ResponseError: func(status int, body []byte) *model.ProviderError {
		return openaichat.ResponseError(status, http.StatusText(status), "application/json", body)
	},
	Canonical: true,
}

func TestRoundTripOpenAIChat(t *testing.T) { wiretest.Test(t, openaichatCodec) }

func FuzzDecodeOpenAIChat(f *testing.F) { wiretest.Fuzz(f, openaichatCodec) }

// TestDecodeRecordedOpenAIChat parses a stream as DeepSeek sends it: an opening
// role event, reasoning, text, the finish and the usage in one event.
func TestDecodeRecordedOpenAIChat(t *testing.T) {
	got := wiretest.DecodeFile(t, openaichat.Decode, "../sse/testdata/openai-chat.sse")
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

var openairesponsesCodec = wiretest.Codec{
	Render: openairesponses.Render, RenderHang: openairesponses.RenderHang, Decode: openairesponses.Decode,
	RenderJSON: openairesponses.RenderJSON, DecodeJSON: openairesponses.DecodeJSON, ErrorBody: openairesponses.ErrorBody,
	ResponseError: func(status int, body []byte) *model.ProviderError {
		return openairesponses.ResponseError(status, http.StatusText(status), "application/json", body)
	},
}

func TestRoundTripOpenAIResponses(t *testing.T) { wiretest.Test(t, openairesponsesCodec) }

func FuzzDecodeOpenAIResponses(f *testing.F) { wiretest.Fuzz(f, openairesponsesCodec) }

// TestDecodeRecordedOpenAIResponses parses a stream whose server sent no
// output_item.done: the open item is closed at response.completed.
func TestDecodeRecordedOpenAIResponses(t *testing.T) {
	got := wiretest.DecodeFile(t, openairesponses.Decode, "../sse/testdata/openai-responses.sse")
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
