package replay

import (
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/model"
)

func TestModelStopReason(t *testing.T) {
	type testCase struct {
		chunk  model.Chunk
		reason string
		ok     bool
	}
	for _, tc := range []testCase{
		{model.Chunk{Type: model.Finish, Reason: model.FinishError, Error: `model stopped with finish_reason "content_filter"`}, "content_filter", true},
		{model.Chunk{Type: model.Finish, Reason: model.FinishError, Error: `model stopped with finish_reason "a b"`}, "a b", true},
		{model.Chunk{Type: model.Finish, Reason: model.FinishError, Error: `model stopped with finish_reason "x" and more`}, "", false},
		{model.Chunk{Type: model.Finish, Reason: model.FinishError, Error: "upstream exploded"}, "", false},
		{model.Chunk{Type: model.Finish, Reason: model.FinishError, Error: `model stopped with finish_reason "x"`, Code: "STREAM"}, "", false},
		{model.Chunk{Type: model.Finish, Reason: model.FinishStop}, "", false},
	} {
		reason, ok := ModelStopReason(tc.chunk)
		if reason != tc.reason || ok != tc.ok {
			t.Errorf("ModelStopReason(%+v) = %q, %v; want %q, %v", tc.chunk, reason, ok, tc.reason, tc.ok)
		}
	}
}

// TestDecodeModelRefusesUnservableErrorFinish: the Server can carry a
// model-side stop only as a finish_reason, so other code-less error
// finishes are refused in a model file (and accepted in a plain script).
func TestDecodeModelRefusesUnservableErrorFinish(t *testing.T) {
	const custom = `[{"kind":"chunks","chunks":[{"type":"finish","reason":"error","error":"refused by policy"}]}]`
	const stop = `[{"kind":"chunks","chunks":[{"type":"finish","reason":"error","error":"model stopped with finish_reason \"content_filter\""}]}]`
	if _, err := DecodeModel(strings.NewReader(custom), "m.json"); err == nil || !strings.Contains(err.Error(), "m.json:1: $[0].chunks[0]: a model-side error finish cannot go over HTTP") {
		t.Errorf("DecodeModel(custom error finish) error = %v", err)
	}
	if _, err := DecodeModel(strings.NewReader(`{"primary":[],"children":{"c1":`+custom+`}}`), "m.json"); err == nil {
		t.Error("DecodeModel accepted a custom error finish in a child script")
	}
	if _, err := DecodeModel(strings.NewReader(stop), "m.json"); err != nil {
		t.Errorf("DecodeModel(model stop) = %v", err)
	}
	if _, err := DecodeScript(strings.NewReader(custom), "s.json"); err != nil {
		t.Errorf("DecodeScript(custom error finish) = %v; the Player serves it as is", err)
	}
}
