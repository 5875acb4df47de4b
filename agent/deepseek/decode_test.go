package deepseek

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/llmreplay/wire/openaichat"
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
	checkCanonical(t, got)
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

// pieces is a reader that returns its input in pieces whose sizes come from
// cuts (cycled; each 1..256 bytes).
type pieces struct {
	data []byte
	cuts []byte
	n    int
}

func (p *pieces) Read(b []byte) (int, error) {
	if len(p.data) == 0 {
		return 0, io.EOF
	}
	size := len(p.data)
	if len(p.cuts) > 0 {
		size = int(p.cuts[p.n%len(p.cuts)]) + 1
		p.n++
	}
	size = min(size, len(b), len(p.data))
	copy(b, p.data[:size])
	p.data = p.data[size:]
	return size, nil
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
		got, gotErr := decode(&pieces{data: body, cuts: cuts})
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("chunks (-whole +split):\n%s", diff)
		}
		if diff := cmp.Diff(errString(wantErr), errString(gotErr)); diff != "" {
			t.Errorf("error (-whole +split):\n%s", diff)
		}
		checkCanonical(t, got)
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// checkCanonical fails unless chunks follow the canonical order: one open
// block at a time, indices 0, 1, 2…, deltas only inside their open block,
// finish last.
func checkCanonical(t *testing.T, chunks []model.Chunk) {
	t.Helper()
	open, next := -1, 0
	for i, c := range chunks {
		switch c.Type {
		case model.BlockStart:
			if open != -1 || c.Index != next {
				t.Fatalf("chunk %d: %+v with block %d open, next index %d", i, c, open, next)
			}
			open, next = c.Index, next+1
		case model.BlockEnd:
			if c.Index != open {
				t.Fatalf("chunk %d: %+v with block %d open", i, c, open)
			}
			open = -1
		case model.Usage, model.Finish:
			if open != -1 {
				t.Fatalf("chunk %d: %+v with block %d open", i, c, open)
			}
			if c.Type == model.Finish && i != len(chunks)-1 {
				t.Fatalf("chunk %d: finish is not last", i)
			}
		default:
			if c.Index != open {
				t.Fatalf("chunk %d: %+v outside its block (open %d)", i, c, open)
			}
			if c.Type == model.ToolCallDelta && c.ID == "" {
				t.Fatalf("chunk %d: %+v without id", i, c)
			}
		}
	}
}
