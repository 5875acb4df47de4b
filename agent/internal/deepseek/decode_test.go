package deepseek

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/wire/openaichat"
	"github.com/acpsnap/acpsnap/internal/wire/wiretest"
	"github.com/acpsnap/acpsnap/model"
)

// TestDecodeInterleavedToolCalls: when the deltas of two tool calls
// alternate, the chunks stay canonical: a new block at every switch (one
// open block at a time), every delta with its call's id, each name once.
func TestDecodeInterleavedToolCalls(t *testing.T) {
	body := strings.Join([]string{
		roleEv,
		deltaEv(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":"{\"pa"}}]}`),
		deltaEv(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"list_dir","arguments":"{\"pa"}}]}`),
		deltaEv(`{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a.go\"}"}}]}`),
		deltaEv(`{"tool_calls":[{"index":1,"function":{"arguments":"th\":"}},{"index":1,"function":{"arguments":"\"d\"}"}}]}`),
		deltaEv(`{"tool_calls":[{"index":0,"function":{"arguments":""}}]}`),
		finishEv("tool_calls"),
		doneEv,
	}, "")
	want := []model.Chunk{
		start(0, "tool-call"), tool(0, "call_a", "read_file", `{"pa`), end(0),
		start(1, "tool-call"), tool(1, "call_b", "list_dir", `{"pa`), end(1),
		start(2, "tool-call"), tool(2, "call_a", "", `th":"a.go"}`), end(2),
		start(3, "tool-call"), tool(3, "call_b", "", `th":`), tool(3, "call_b", "", `"d"}`), end(3),
		start(4, "tool-call"), tool(4, "call_a", "", ""), end(4),
		finish("tool-calls"),
	}
	got, err := decode(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
	wiretest.CheckCanonical(t, got)
}

// decode runs the decoder over r and returns the chunks and the error.
func decode(r io.Reader) ([]model.Chunk, error) {
	var got []model.Chunk
	err := openaichat.Decode(r, func(c model.Chunk) error {
		got = append(got, c)
		return nil
	})
	return got, err
}

// FuzzDecode: the decoder never panics, and however the body is split into
// reads, it emits the same chunks and ends with the same error.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(toolsMessage), []byte{0, 1, 7, 200})
	f.Add([]byte(strings.ReplaceAll(toolsMessage, "\n", "\r\n")), []byte{3})
	f.Add([]byte(roleEv+deltaEv(`{"content":"Hel"}`)+data(`{"error":{"message":"x","code":"RATE_LIMIT"}}`)), []byte{9, 2})
	f.Add([]byte(deltaEv(`{"content":"a"}`)+finishEv("length")+usageEv+doneEv), []byte{})
	f.Add([]byte("data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":3}]}}]}\n\ndata: [DONE]\n\n"), []byte{1})
	f.Add([]byte(deltaEv(`{"content":"a"}`)+finishEv("stop")+"data: [DONE]"), []byte{5})
	f.Fuzz(func(t *testing.T, body, cuts []byte) {
		want, wantErr := decode(strings.NewReader(string(body)))
		got, gotErr := decode(wiretest.Pieces(body, cuts))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("chunks (-whole +split):\n%s", diff)
		}
		if diff := cmp.Diff(errString(wantErr), errString(gotErr)); diff != "" {
			t.Errorf("error (-whole +split):\n%s", diff)
		}
		wiretest.CheckCanonical(t, got)
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
