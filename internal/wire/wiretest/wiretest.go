// Package wiretest checks a model dialect's codec against the contract of
// package wire: render then parse gives the chunks back, for every chunk
// type, finish reason and error code, streamed and not, and the parser
// survives any input. Each codec's tests call Test and Fuzz with its
// functions.
package wiretest

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/sse"
	"github.com/acpsnap/acpsnap/model"
)

// Codec is the render and parse sides of one dialect.
type Codec struct {
	Render        func(wire.Response) []sse.Event
	RenderHang    func(id, model string) []sse.Event
	Decode        func(io.Reader, func(model.Chunk) error) error
	RenderJSON    func(wire.Response) (int, []byte)
	DecodeJSON    func([]byte, func(model.Chunk) error) error
	ErrorBody     func(code, msg string) (int, []byte)
	ResponseError func(status int, body []byte) *model.ProviderError
	// AlwaysUsage: the dialect always reports usage, so a response
	// without a usage chunk parses with usage 0/0 before its finish.
	AlwaysUsage bool
	// Canonical: Decode emits canonical chunks whatever its input (Fuzz
	// checks it).
	Canonical bool
	// WholeCalls: the dialect sends a tool call's arguments whole and no
	// call id (Gemini), so a streamed call parses as one delta without id.
	WholeCalls bool
}

// Case is one scripted response.
type Case struct {
	Name     string
	Response wire.Response
}

func start(i int, typ string) model.Chunk {
	return model.Chunk{Type: model.BlockStart, Index: i, BlockType: typ}
}
func end(i int) model.Chunk { return model.Chunk{Type: model.BlockEnd, Index: i} }
func text(i int, s string) model.Chunk {
	return model.Chunk{Type: model.TextDelta, Index: i, Text: s}
}
func usage(in, out int) model.Chunk {
	return model.Chunk{Type: model.Usage, InputTokens: in, OutputTokens: out}
}
func finish(reason string) model.Chunk { return model.Chunk{Type: model.Finish, Reason: reason} }

// Cases returns responses in canonical chunk order that cover every chunk
// type, block type and finish reason, a model-side stop and a stream that
// fails mid-block.
func Cases() []Case {
	resp := func(chunks ...model.Chunk) wire.Response {
		return wire.Response{ID: "r1", Model: "m", Chunks: chunks}
	}
	failing := resp(start(0, model.BlockText), text(0, "Hel"))
	failing.Err = &model.ProviderError{Code: model.CodeRateLimit, Message: "slow down"}
	return []Case{
		{"text", resp(start(0, model.BlockText), text(0, "Hello"), text(0, ", <world> & \"you\"\n"), end(0), usage(12, 3), finish(model.FinishStop))},
		{"reasoning, text and two tool calls", resp(
			start(0, model.BlockReasoning), model.Chunk{Type: model.ReasoningDelta, Index: 0, Text: "think"}, model.Chunk{Type: model.ReasoningDelta, Index: 0, Text: " more"}, end(0),
			start(1, model.BlockText), text(1, "Let me look."), end(1),
			start(2, model.BlockToolCall),
			model.Chunk{Type: model.ToolCallDelta, Index: 2, ID: "call_a", Name: "read", ArgumentsDelta: `{"pa`},
			model.Chunk{Type: model.ToolCallDelta, Index: 2, ID: "call_a", ArgumentsDelta: `th":"x"}`}, end(2),
			start(3, model.BlockToolCall), model.Chunk{Type: model.ToolCallDelta, Index: 3, ID: "call_b", Name: "bash", ArgumentsDelta: `{}`}, end(3),
			usage(10, 5), finish(model.FinishToolCalls))},
		{"max tokens", resp(start(0, model.BlockText), text(0, "cut"), end(0), usage(1, 2), finish(model.FinishMaxTokens))},
		{"model-side stop", resp(start(0, model.BlockText), text(0, "no"), end(0), usage(1, 1), wire.ModelStop("content_filter"))},
		{"no usage", resp(start(0, model.BlockText), text(0, "ok"), end(0), finish(model.FinishStop))},
		{"fails mid-block", failing},
	}
}

// Codes are the provider error codes.
var Codes = []string{model.CodeAuth, model.CodeRateLimit, model.CodeUnavailable, model.CodeBadRequest,
	model.CodeStream, model.CodeReplay, model.CodeInternal}

// decode runs decode over r and returns the chunks and the error.
func decode(dec func(io.Reader, func(model.Chunk) error) error, r io.Reader) ([]model.Chunk, error) {
	var got []model.Chunk
	err := dec(r, func(c model.Chunk) error {
		got = append(got, c)
		return nil
	})
	return got, err
}

// Bytes returns the wire bytes of events.
func Bytes(events []sse.Event) []byte {
	var b []byte
	for _, ev := range events {
		b = ev.AppendTo(b)
	}
	return b
}

// want returns the chunks c's parse must give back.
func (c Codec) want(chunks []model.Chunk) []model.Chunk {
	if c.WholeCalls {
		chunks = WholeCalls(chunks)
	}
	if !c.AlwaysUsage {
		return chunks
	}
	for _, x := range chunks {
		if x.Type == model.Usage {
			return chunks
		}
	}
	n := len(chunks)
	if n == 0 || chunks[n-1].Type != model.Finish {
		return chunks
	}
	return append(append(append([]model.Chunk{}, chunks[:n-1]...), usage(0, 0)), chunks[n-1])
}

// Test checks the round trips of c.
func Test(t *testing.T, c Codec) {
	t.Helper()
	for _, tc := range Cases() {
		t.Run("stream/"+tc.Name, func(t *testing.T) {
			got, err := decode(c.Decode, bytes.NewReader(Bytes(c.Render(tc.Response))))
			if diff := cmp.Diff(c.want(tc.Response.Chunks), got); diff != "" {
				t.Errorf("chunks (-want +got):\n%s", diff)
			}
			checkErr(t, tc.Response.Err, err)
		})
		t.Run("json/"+tc.Name, func(t *testing.T) {
			status, body := c.RenderJSON(tc.Response)
			if tc.Response.Err != nil {
				checkErr(t, tc.Response.Err, c.ResponseError(status, body))
				return
			}
			var got []model.Chunk
			err := c.DecodeJSON(body, func(x model.Chunk) error { got = append(got, x); return nil })
			if diff := cmp.Diff(c.want(Merge(tc.Response.Chunks)), got); diff != "" || err != nil || status != 200 {
				t.Errorf("status %d, error %v, chunks (-want +got):\n%s", status, err, diff)
			}
		})
	}
	for _, code := range Codes {
		t.Run("error/"+code, func(t *testing.T) {
			want := &model.ProviderError{Code: code, Message: "boom: " + code}
			status, body := c.ErrorBody(code, want.Message)
			if status != wire.Status(code) {
				t.Errorf("status = %d, want %d", status, wire.Status(code))
			}
			checkErr(t, want, c.ResponseError(status, body))
			r := wire.Response{ID: "r1", Model: "m", Err: want}
			_, err := decode(c.Decode, bytes.NewReader(Bytes(c.Render(r))))
			checkErr(t, want, err)
			r = wire.Response{ID: "r1", Model: "m", Chunks: []model.Chunk{{Type: model.Finish, Reason: model.FinishError, Error: want.Message, Code: code}}}
			_, err = decode(c.Decode, bytes.NewReader(Bytes(c.Render(r))))
			checkErr(t, want, err)
		})
	}
	t.Run("hang", func(t *testing.T) {
		got, err := decode(c.Decode, bytes.NewReader(Bytes(c.RenderHang("r1", "m"))))
		if len(got) != 0 {
			t.Errorf("a hang's opening parsed into %v, want no chunk", got)
		}
		checkErr(t, &model.ProviderError{Code: model.CodeStream}, err)
	})
}

// checkErr fails unless err is a *model.ProviderError with want's code and
// (when want has one) message; want nil wants err nil.
func checkErr(t *testing.T, want *model.ProviderError, err error) {
	t.Helper()
	if want == nil {
		if err != nil {
			t.Errorf("error = %v, want none", err)
		}
		return
	}
	perr, ok := err.(*model.ProviderError)
	if !ok || perr.Code != want.Code || (want.Message != "" && perr.Message != want.Message) {
		t.Errorf("error = %#v, want %#v", err, want)
	}
}

// WholeCalls joins the deltas of each tool call into one without an id,
// as a dialect that sends calls whole and without ids parses them.
func WholeCalls(chunks []model.Chunk) []model.Chunk {
	var out []model.Chunk
	at := map[int]int{} // block index → position of its call in out
	for _, c := range chunks {
		if c.Type != model.ToolCallDelta {
			out = append(out, c)
			continue
		}
		if i, ok := at[c.Index]; ok {
			out[i].ArgumentsDelta += c.ArgumentsDelta
			continue
		}
		at[c.Index] = len(out)
		c.ID = ""
		out = append(out, c)
	}
	return out
}

// Merge joins the deltas of each block into one, as a non-streamed answer
// carries them.
func Merge(chunks []model.Chunk) []model.Chunk {
	var out []model.Chunk
	at := map[int]int{} // block index → position of its merged delta in out
	for _, c := range chunks {
		switch c.Type {
		case model.TextDelta, model.ReasoningDelta, model.ToolCallDelta:
			if i, ok := at[c.Index]; ok {
				out[i].Text += c.Text
				out[i].ArgumentsDelta += c.ArgumentsDelta
				continue
			}
			at[c.Index] = len(out)
		}
		out = append(out, c)
	}
	return out
}

// Pieces returns a reader of data that returns it in pieces whose sizes
// come from cuts (cycled; each 1..256 bytes; no cuts: all at once).
func Pieces(data, cuts []byte) io.Reader { return &pieces{data: data, cuts: cuts} }

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

// Fuzz checks that c's stream parser never panics and, however the body
// is split into reads, emits the same chunks and ends with the same error.
// It is seeded with the rendering of every case, in LF and CRLF.
func Fuzz(f *testing.F, c Codec) {
	for _, tc := range Cases() {
		b := Bytes(c.Render(tc.Response))
		f.Add(b, []byte{0, 1, 7, 200})
		f.Add([]byte(strings.ReplaceAll(string(b), "\n", "\r\n")), []byte{3})
	}
	f.Fuzz(func(t *testing.T, body, cuts []byte) {
		want, wantErr := decode(c.Decode, bytes.NewReader(body))
		got, gotErr := decode(c.Decode, Pieces(body, cuts))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("chunks (-whole +split):\n%s", diff)
		}
		if diff := cmp.Diff(errString(wantErr), errString(gotErr)); diff != "" {
			t.Errorf("error (-whole +split):\n%s", diff)
		}
		if c.Canonical {
			CheckCanonical(t, got)
		}
	})
}

// CheckCanonical fails unless chunks follow the canonical order of
// model.Chunk: one open block at a time, indices 0, 1, 2…, deltas only
// inside their open block, tool-call deltas with an id, finish last.
func CheckCanonical(t *testing.T, chunks []model.Chunk) {
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

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// DecodeFile parses the stream recorded in path with dec and returns its
// chunks; a parse error fails the test.
func DecodeFile(t *testing.T, dec func(io.Reader, func(model.Chunk) error) error, path string) []model.Chunk {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decode(dec, bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return got
}
