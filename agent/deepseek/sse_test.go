package deepseek

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/model"
)

// readEvents returns the data of every event of r and the error that ended
// the reading (nil for io.EOF).
func readEvents(r io.Reader) ([]string, error) {
	s := newSSEReader(r)
	var events []string
	for {
		data, err := s.Next()
		if err == io.EOF {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, string(data))
	}
}

func TestSSEReader(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // longer than the bufio buffer
	type testCase struct {
		name string
		in   string
		want []string
	}
	tests := []testCase{
		{"one event", "data: {}\n\n", []string{"{}"}},
		{"no space after the colon", "data:{}\n\n", []string{"{}"}},
		{"only one space stripped", "data:  a\n\n", []string{" a"}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"multi-line data", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"empty data line", "data:\n\n", []string{""}},
		{"comments and blank lines", ": keep-alive\n\n\n: x\ndata: a\n\n", []string{"a"}},
		{"other fields ignored", "event: message\nid: 7\nretry: 10\ndata: a\n\n", []string{"a"}},
		{"line without colon is a field without value", "data\nfoo\ndata: a\n\n", []string{"\na"}},
		{"event cut off by EOF dispatched", "data: a\n\ndata: b\n", []string{"a", "b"}},
		{"last line cut off by EOF dispatched", "data: a\n\ndata: b", []string{"a", "b"}},
		{"multi-line event cut off by EOF", "data: a\ndata: b\r\n", []string{"a\nb"}},
		{"[DONE] cut off by EOF after CR", "data: [DONE]\r", []string{"[DONE]"}},
		{"comment at EOF dispatches nothing", "data: a\n\n: bye", []string{"a"}},
		{"long last line cut off by EOF", "data: " + long, []string{long}},
		{"long line", "data: " + long + "\n\n", []string{long}},
		{"empty", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				got, err := readEvents(r)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("events (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestSSEReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	got, err := readEvents(io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom)))
	if diff := cmp.Diff([]string{"a"}, got); diff != "" || err != boom {
		t.Errorf("events (-want +got):\n%s\nerror = %v, want %v", diff, err, boom)
	}
	huge := "data: " + strings.Repeat("x", maxEventSize+1) + "\n\n"
	if _, err := readEvents(strings.NewReader(huge)); err != errEventTooLarge {
		t.Errorf("event over the limit: error = %v, want %v", err, errEventTooLarge)
	}
	lines := strings.Repeat("data: "+strings.Repeat("x", 1<<20)+"\n", 17) + "\n"
	if _, err := readEvents(strings.NewReader(lines)); err != errEventTooLarge {
		t.Errorf("data lines over the limit: error = %v, want %v", err, errEventTooLarge)
	}
}

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
	err := newDecoder(func(c model.Chunk) error {
		got = append(got, c)
		return nil
	}).run(r)
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
