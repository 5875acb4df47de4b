package llmreplay

import "testing"

func TestModelStopReason(t *testing.T) {
	type testCase struct {
		chunk  Chunk
		reason string
		ok     bool
	}
	for _, tc := range []testCase{
		{Chunk{Type: Finish, Reason: FinishError, Error: `model stopped with finish_reason "content_filter"`}, "content_filter", true},
		{Chunk{Type: Finish, Reason: FinishError, Error: `model stopped with finish_reason "a b"`}, "a b", true},
		{Chunk{Type: Finish, Reason: FinishError, Error: `model stopped with finish_reason "x" and more`}, "", false},
		{Chunk{Type: Finish, Reason: FinishError, Error: "upstream exploded"}, "", false},
		{Chunk{Type: Finish, Reason: FinishError, Error: `model stopped with finish_reason "x"`, Code: "STREAM"}, "", false},
		{Chunk{Type: Finish, Reason: FinishStop}, "", false},
	} {
		reason, ok := ModelStopReason(tc.chunk)
		if reason != tc.reason || ok != tc.ok {
			t.Errorf("ModelStopReason(%+v) = %q, %v; want %q, %v", tc.chunk, reason, ok, tc.reason, tc.ok)
		}
	}
}
