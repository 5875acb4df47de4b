package replay

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/model"
)

// canonical is one model call in the adapter's canonical chunk order:
// reasoning, text, two tool calls with arguments in pieces, usage, finish.
var canonical = Entry{Kind: KindChunks, Chunks: []model.Chunk{
	{Type: model.BlockStart, Index: 0, BlockType: model.BlockReasoning},
	{Type: model.ReasoningDelta, Index: 0, Text: "think"},
	{Type: model.BlockEnd, Index: 0},
	{Type: model.BlockStart, Index: 1, BlockType: model.BlockText},
	{Type: model.TextDelta, Index: 1, Text: "Hi "},
	{Type: model.TextDelta, Index: 1, Text: "there"},
	{Type: model.BlockEnd, Index: 1},
	{Type: model.BlockStart, Index: 2, BlockType: model.BlockToolCall},
	{Type: model.ToolCallDelta, Index: 2, ID: "call_a", Name: "read", ArgumentsDelta: `{"pa`},
	{Type: model.ToolCallDelta, Index: 2, ID: "call_a", ArgumentsDelta: `th":"x"}`},
	{Type: model.BlockEnd, Index: 2},
	{Type: model.BlockStart, Index: 3, BlockType: model.BlockToolCall},
	{Type: model.ToolCallDelta, Index: 3, ID: "call_b", Name: "bash", ArgumentsDelta: `{}`},
	{Type: model.BlockEnd, Index: 3},
	{Type: model.Usage, InputTokens: 10, OutputTokens: 5},
	{Type: model.Finish, Reason: model.FinishToolCalls},
}}

const canonicalWire = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"deepseek-chat","choices":[{"index":0,"delta":{"reasoning_content":"think"},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"deepseek-chat","choices":[{"index":0,"delta":{"content":"Hi "},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"deepseek-chat","choices":[{"index":0,"delta":{"content":"there"},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"deepseek-chat","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":"{\"pa"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"deepseek-chat","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"x\"}"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"deepseek-chat","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"bash","arguments":"{}"}}]},"finish_reason":null}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"deepseek-chat","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}

data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"deepseek-chat","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}

data: [DONE]

`

// startServer starts a Server closed at the end of the test.
func startServer(t *testing.T, cfg ServerConfig) *Server {
	t.Helper()
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

type response struct {
	Status      int
	ContentType string
	Body        string
}

// post sends one chat-completions request and reads the whole response.
func post(t *testing.T, ctx context.Context, url, spawnedBy string) response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(`{"model":"deepseek-chat","stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if spawnedBy != "" {
		req.Header.Set(SpawnedByHeader, spawnedBy)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{res.StatusCode, res.Header.Get("Content-Type"), string(b)}
}

func TestServerCanonicalWire(t *testing.T) {
	s := startServer(t, ServerConfig{Primary: Script{canonical}})
	got := post(t, context.Background(), s.URL()+"/chat/completions", "")
	want := response{200, "text/event-stream", canonicalWire}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("wire (-want +got):\n%s", diff)
	}
}

func TestServerEntries(t *testing.T) {
	text := Entry{Kind: KindChunks, Chunks: []model.Chunk{{Type: model.TextDelta, Index: 0, Text: "ok"}, {Type: model.Finish, Reason: model.FinishStop}}}
	const textWire = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"deepseek-chat","choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}` + "\n\n" +
		`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"deepseek-chat","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
		"data: [DONE]\n\n"
	type testCase struct {
		name  string
		entry Entry
		want  response
	}
	tests := []testCase{
		{"text", text, response{200, "text/event-stream", textWire}},
		{"max-tokens", Entry{Kind: KindChunks, Chunks: []model.Chunk{{Type: model.Finish, Reason: model.FinishMaxTokens}}}, response{200, "text/event-stream",
			`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"deepseek-chat","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}` + "\n\ndata: [DONE]\n\n"}},
		{"auth", Entry{Kind: KindThrow, Code: "AUTH", Message: "bad key"}, response{401, "application/json",
			`{"error":{"message":"bad key","type":"api_error","code":"AUTH"}}` + "\n"}},
		{"rate limit", Entry{Kind: KindThrow, Code: "RATE_LIMIT", Message: "slow down"}, response{429, "application/json",
			`{"error":{"message":"slow down","type":"api_error","code":"RATE_LIMIT"}}` + "\n"}},
		{"unavailable", Entry{Kind: KindThrow, Code: "UNAVAILABLE", Message: "busy"}, response{503, "application/json",
			`{"error":{"message":"busy","type":"api_error","code":"UNAVAILABLE"}}` + "\n"}},
		{"bad request", Entry{Kind: KindThrow, Code: "BAD_REQUEST", Message: "no"}, response{400, "application/json",
			`{"error":{"message":"no","type":"api_error","code":"BAD_REQUEST"}}` + "\n"}},
		{"other code", Entry{Kind: KindThrow, Code: "INTERNAL", Message: "boom"}, response{500, "application/json",
			`{"error":{"message":"boom","type":"api_error","code":"INTERNAL"}}` + "\n"}},
		{"accepted throw", Entry{Kind: KindThrow, Code: "STREAM", Message: "cut", Accepted: true, Chunks: text.Chunks[:1]}, response{200, "text/event-stream",
			strings.SplitAfter(textWire, "\n\n")[0] + `data: {"error":{"message":"cut","code":"STREAM"}}` + "\n\n"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := startServer(t, ServerConfig{Primary: Script{tc.entry}})
			got := post(t, context.Background(), s.URL()+"/v1/chat/completions", "")
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("response (-want +got):\n%s", diff)
			}
		})
	}
}

func TestServerRoutesAndReport(t *testing.T) {
	stop := Entry{Kind: KindChunks, Chunks: []model.Chunk{{Type: model.Finish, Reason: model.FinishStop}}}
	s := startServer(t, ServerConfig{Primary: Script{stop, stop}, Children: map[string]Script{"call_1": {stop}, "call_2": {stop}}})
	ctx := context.Background()
	var statuses []int
	for _, route := range []string{"", "call_1", "call_1", "", "call_9", "", "call_2"} {
		statuses = append(statuses, post(t, ctx, s.URL()+"/chat/completions", route).Status)
	}
	if diff := cmp.Diff([]int{200, 200, 500, 200, 500, 500, 200}, statuses); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	want := agentenv.Report{
		Fixtures: []agentenv.FixtureReport{{Fixture: "primary", Served: 2, Left: 0}, {Fixture: "call_1", Served: 1, Left: 0}, {Fixture: "call_2", Served: 1, Left: 0}},
		Errors: []string{
			`REPLAY: llmreplay: script exhausted: child call_1 has 1 entries, model call 2 was not recorded; re-record the scenario`,
			`REPLAY: llmreplay: unrecorded session: no child script for tool call "call_9"; re-record the scenario`,
			`REPLAY: llmreplay: script exhausted: primary has 2 entries, model call 3 was not recorded; re-record the scenario`,
		},
	}
	if diff := cmp.Diff(want, s.Report()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	reqs := s.Requests()
	if len(reqs) != 7 || reqs[1].Header.Get(SpawnedByHeader) != "call_1" || reqs[0].Method != "POST" || reqs[0].Path != "/chat/completions" ||
		string(reqs[0].Body) != `{"model":"deepseek-chat","stream":true}` {
		t.Errorf("requests not recorded as sent: %+v", reqs)
	}
}

func TestServerExhaustedBody(t *testing.T) {
	s := startServer(t, ServerConfig{})
	got := post(t, context.Background(), s.URL()+"/chat/completions", "")
	want := response{500, "application/json",
		`{"error":{"message":"llmreplay: script exhausted: primary has 0 entries, model call 1 was not recorded; re-record the scenario","type":"api_error","code":"REPLAY"}}` + "\n"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
}

func TestServerUnknownRoute(t *testing.T) {
	s := startServer(t, ServerConfig{})
	res, err := http.Get(s.URL() + "/chat/completions")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("GET status = %d, want 405", res.StatusCode)
	}
	res, err = http.Post(s.URL()+"/completions", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Errorf("POST /completions status = %d, want 404", res.StatusCode)
	}
}

// hangStart is the first event of a hung stream.
const hangStart = `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":0,"model":"deepseek-chat","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}` + "\n\n"

// startHang posts to a hang entry and returns once the ready file exists,
// with the response body open.
func startHang(t *testing.T, ctx context.Context, s *Server, dir string) io.ReadCloser {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.URL()+"/chat/completions", strings.NewReader(`{"model":"deepseek-chat"}`))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, len(hangStart))
	if _, err := io.ReadFull(res.Body, first); err != nil {
		t.Fatal(err)
	}
	if string(first) != hangStart {
		t.Errorf("first event = %q, want %q", first, hangStart)
	}
	// The server creates the file right after flushing the event: wait
	// for it as the harness does, polling with a deadline.
	ready := filepath.Join(dir, "sub", "ready")
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(ready); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("ready file never appeared: %v", err)
		}
	}
	return res.Body
}

func TestServerHangEndsWhenClientLeaves(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, ServerConfig{Primary: Script{{Kind: KindHang, ReadyFile: "sub/ready"}}, ReadyDir: dir})
	ctx, cancel := context.WithCancel(context.Background())
	body := startHang(t, ctx, s, dir)
	cancel()
	body.Close()
	// Close waits for every handler: it returns only if the hung handler saw the client leave.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestServerHangEndsOnClose(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, ServerConfig{Primary: Script{{Kind: KindHang, ReadyFile: "sub/ready"}}})
	s.SetReadyDir(dir)
	body := startHang(t, context.Background(), s, dir)
	defer body.Close()
	closed := make(chan error)
	go func() { closed <- s.Close() }()
	select {
	case <-closed:
	case <-time.After(10 * time.Second):
		t.Fatal("Close did not end the hung stream")
	}
	if rest, err := io.ReadAll(body); len(rest) != 0 {
		t.Errorf("after Close: rest %q (err %v); want nothing more, no [DONE]", rest, err)
	}
}

func TestServerModelErrorAndHeldUsage(t *testing.T) {
	usage := model.Chunk{Type: model.Usage, InputTokens: 1, OutputTokens: 2}
	s := startServer(t, ServerConfig{Primary: Script{
		{Kind: KindChunks, Chunks: []model.Chunk{{Type: model.Finish, Reason: model.FinishError, Error: "refused"}}},
		{Kind: KindThrow, Accepted: true, Chunks: []model.Chunk{usage}, Code: "STREAM", Message: "cut"},
	}})
	const usageEvent = `data: {"id":"chatcmpl-2","object":"chat.completion.chunk","created":0,"model":"deepseek-chat","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"total_tokens":3}}` + "\n\n"
	want := []response{
		{200, "text/event-stream", `data: {"error":{"message":"refused","code":"INTERNAL"}}` + "\n\n"},
		{200, "text/event-stream", usageEvent + `data: {"error":{"message":"cut","code":"STREAM"}}` + "\n\n"},
	}
	var got []response
	for range want {
		got = append(got, post(t, context.Background(), s.URL()+"/chat/completions", ""))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("responses (-want +got):\n%s", diff)
	}
}

func TestNewServerUnknownKind(t *testing.T) {
	_, err := NewServer(ServerConfig{Children: map[string]Script{"call_1": {{Kind: "wait"}}}})
	want := `llmreplay: start server: child call_1[0]: unknown entry kind "wait"`
	if err == nil || err.Error() != want {
		t.Errorf("NewServer error = %v, want %s", err, want)
	}
}

// TestServerMatch: an entry with a match answers the first request whose
// body it matches, in whichever order the requests arrive; the others
// answer by position. A folder placeholder in a match stands for the
// run's folder, as in the entries served, quoted: before, "{{cwd}}" was
// matched literally, so the side call took the turn's answer.
func TestServerMatch(t *testing.T) {
	const cwd = "/tmp/a+b (1)/workspace" // regex metacharacters, quoted
	text := func(s string) Entry {
		return Entry{Kind: KindChunks, Chunks: []model.Chunk{{Type: model.BlockStart, BlockType: model.BlockText},
			{Type: model.TextDelta, Text: s}, {Type: model.BlockEnd}, {Type: model.Finish, Reason: model.FinishStop}}}
	}
	title := `{"model":"m","stream":true,"messages":[{"role":"user","content":"Title this: read ` + cwd + `/notes.txt"}]}`
	turn := `{"model":"m","stream":true,"messages":[{"role":"system","content":"You are an agent."},{"role":"user","content":"read ` + cwd + `/notes.txt"}]}`
	type testCase struct {
		name  string
		match string
		order []string // the bodies, in arrival order
		want  []string // the text each one gets
	}
	cases := []testCase{
		{"side call first", `Title this`, []string{title, turn}, []string{"Milk", "Hello."}},
		{"side call second", `Title this`, []string{turn, title}, []string{"Hello.", "Milk"}},
		{"a folder placeholder", `Title this: read {{cwd}}/notes\.txt`, []string{turn, title}, []string{"Hello.", "Milk"}},
		{"a relative folder placeholder", `Title this: read /{{cwdRel}}/`, []string{title, turn}, []string{"Milk", "Hello."}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			side := text("Milk")
			side.Match = regexp.MustCompile(c.match)
			s := startServer(t, ServerConfig{Primary: Script{side, text("Hello.")}})
			s.SetRoots(cwd, "", "")
			var got []string
			for _, body := range c.order {
				res, err := http.Post(s.URL()+"/chat/completions", "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				b, _ := io.ReadAll(res.Body)
				res.Body.Close()
				var texts []string
				for _, w := range []string{"Milk", "Hello."} {
					if strings.Contains(string(b), `"content":"`+w+`"`) {
						texts = append(texts, w)
					}
				}
				got = append(got, strings.Join(texts, "+"))
			}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Errorf("answers (-want +got):\n%s\nerrors: %v", d, s.Report().Errors)
			}
		})
	}
}
