package deepseek

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/model"
)

// response is one scripted answer of sseServer.
type response struct {
	status int      // 0: a 200 stream of parts; else an answer of body
	body   string   // the body of a status answer
	parts  []string // a stream: written and flushed one by one
	// contentType overrides the Content-Type (application/json for a
	// status answer, text/event-stream for a stream).
	contentType string
	// After the parts: drop aborts the connection; hang blocks until the
	// client goes away, then closes gone.
	drop bool
	hang bool
	gone chan struct{}
}

// recorded is one request the server received.
type recorded struct {
	Method, Path string
	Header       http.Header
	Body         []byte
}

// sseServer is a scripted chat-completions server on 127.0.0.1: the n-th
// request gets responses[n].
type sseServer struct {
	*httptest.Server
	mu        sync.Mutex
	responses []response
	requests  []recorded
}

func newSSEServer(t *testing.T, responses ...response) *sseServer {
	t.Helper()
	s := &sseServer{responses: responses}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *sseServer) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	n := len(s.requests)
	s.requests = append(s.requests, recorded{r.Method, r.URL.Path, r.Header.Clone(), body})
	s.mu.Unlock()
	if n >= len(s.responses) {
		http.Error(w, "unscripted request", http.StatusTeapot)
		return
	}
	resp := s.responses[n]
	contentType := func(def string) string {
		if resp.contentType != "" {
			return resp.contentType
		}
		return def
	}
	if resp.status != 0 {
		w.Header().Set("Content-Type", contentType("application/json"))
		w.WriteHeader(resp.status)
		io.WriteString(w, resp.body)
		return
	}
	w.Header().Set("Content-Type", contentType("text/event-stream"))
	w.WriteHeader(http.StatusOK)
	for _, p := range resp.parts {
		io.WriteString(w, p)
		w.(http.Flusher).Flush()
	}
	switch {
	case resp.drop:
		panic(http.ErrAbortHandler)
	case resp.hang:
		<-r.Context().Done()
		close(resp.gone)
	}
}

func (s *sseServer) recorded() []recorded {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]recorded(nil), s.requests...)
}

// Event builders in DeepSeek's exact shapes.

func data(json string) string { return "data: " + json + "\n\n" }

func deltaEv(delta string) string {
	return data(`{"id":"b1","object":"chat.completion.chunk","created":1700000000,"model":"deepseek-chat","system_fingerprint":"fp_1","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":null}]}`)
}

func finishEv(reason string) string {
	return data(`{"id":"b1","object":"chat.completion.chunk","created":1700000000,"model":"deepseek-chat","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"` + reason + `"}]}`)
}

const (
	usageEv = `data: {"id":"b1","object":"chat.completion.chunk","created":1700000000,"model":"deepseek-chat","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":34,"total_tokens":46,"prompt_cache_hit_tokens":0}}` + "\n\n"
	doneEv  = "data: [DONE]\n\n"
	roleEv  = `data: {"id":"b1","object":"chat.completion.chunk","created":1700000000,"model":"deepseek-chat","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}` + "\n\n"
)

// split cuts s into pieces at the given byte offsets.
func split(s string, at ...int) []string {
	var parts []string
	prev := 0
	for _, a := range at {
		parts = append(parts, s[prev:a])
		prev = a
	}
	return append(parts, s[prev:])
}

// Chunk builders.

func start(i int, typ string) model.Chunk {
	return model.Chunk{Type: model.BlockStart, Index: i, BlockType: typ}
}
func text(i int, s string) model.Chunk {
	return model.Chunk{Type: model.TextDelta, Index: i, Text: s}
}
func reasoning(i int, s string) model.Chunk {
	return model.Chunk{Type: model.ReasoningDelta, Index: i, Text: s}
}
func tool(i int, id, name, args string) model.Chunk {
	return model.Chunk{Type: model.ToolCallDelta, Index: i, ID: id, Name: name, ArgumentsDelta: args}
}
func end(i int) model.Chunk { return model.Chunk{Type: model.BlockEnd, Index: i} }
func use(in, out int) model.Chunk {
	return model.Chunk{Type: model.Usage, InputTokens: in, OutputTokens: out}
}
func finish(reason string) model.Chunk {
	return model.Chunk{Type: model.Finish, Reason: reason}
}

func perr(code, msg string) *model.ProviderError {
	return &model.ProviderError{Code: code, Message: msg}
}

// collect runs one Stream and returns the chunks emitted and the provider
// error (nil if Stream returned nil); any other error fails the test.
func collect(t *testing.T, p *Provider, req model.Request) ([]model.Chunk, *model.ProviderError) {
	t.Helper()
	var got []model.Chunk
	err := p.Stream(context.Background(), req, func(c model.Chunk) error {
		got = append(got, c)
		return nil
	})
	var pe *model.ProviderError
	if err != nil && !errors.As(err, &pe) {
		t.Fatalf("Stream: %v (%T), want nil or *model.ProviderError", err, err)
	}
	return got, pe
}

var toolsMessage = strings.Join([]string{
	roleEv,
	deltaEv(`{"content":null,"reasoning_content":"Let me "}`),
	deltaEv(`{"content":null,"reasoning_content":"look."}`),
	deltaEv(`{"content":"Reading ","reasoning_content":null}`),
	deltaEv(`{"content":"both."}`),
	deltaEv(`{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read_file","arguments":""}}]}`),
	deltaEv(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]}`),
	deltaEv(`{"tool_calls":[{"index":0,"function":{"arguments":"th\":\"a.go\"}"}}]}`),
	deltaEv(`{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"list_dir","arguments":"{"}}]}`),
	deltaEv(`{"tool_calls":[{"index":1,"function":{"arguments":"}"}}]}`),
	finishEv("tool_calls"),
	usageEv,
	doneEv,
}, "")

func TestStream(t *testing.T) {
	textMessage := roleEv + deltaEv(`{"content":"Hello"}`) + ": keep-alive\n\n" + deltaEv(`{"content":", world"}`) + finishEv("stop") + usageEv + doneEv
	textChunks := []model.Chunk{start(0, "text"), text(0, "Hello"), text(0, ", world"), end(0), use(12, 34), finish("stop")}
	broken := roleEv + deltaEv(`{"content":"Hel"}`)
	brokenChunks := []model.Chunk{start(0, "text"), text(0, "Hel")}
	type testCase struct {
		name    string
		resp    response
		want    []model.Chunk
		wantErr *model.ProviderError
	}
	tests := []testCase{{
		name: "text",
		resp: response{parts: []string{textMessage}},
		want: textChunks,
	}, {
		name: "lines split across flushes",
		resp: response{parts: split(textMessage, 3, 6, len(roleEv)+1, len(roleEv)+40, len(textMessage)-len(doneEv)-1, len(textMessage)-3)},
		want: textChunks,
	}, {
		name: "CRLF line ends",
		resp: response{parts: []string{strings.ReplaceAll(textMessage, "\n", "\r\n")}},
		want: textChunks,
	}, {
		name: "reasoning, text, two tool calls in pieces",
		resp: response{parts: split(toolsMessage, 100, 1000, 1500)},
		want: []model.Chunk{
			start(0, "reasoning"), reasoning(0, "Let me "), reasoning(0, "look."), end(0),
			start(1, "text"), text(1, "Reading "), text(1, "both."), end(1),
			start(2, "tool-call"), tool(2, "call_a", "read_file", ""), tool(2, "call_a", "", `{"pa`), tool(2, "call_a", "", `th":"a.go"}`), end(2),
			start(3, "tool-call"), tool(3, "call_b", "list_dir", "{"), tool(3, "call_b", "", "}"), end(3),
			use(12, 34), finish("tool-calls"),
		},
	}, {
		name: "[DONE] at EOF without its blank line",
		resp: response{parts: []string{strings.TrimSuffix(textMessage, "\n")}},
		want: textChunks,
	}, {
		name: "[DONE] at EOF without a line end",
		resp: response{parts: []string{strings.TrimSuffix(textMessage, "\n\n")}},
		want: textChunks,
	}, {
		name:    "finish at EOF without its blank line, no [DONE]",
		resp:    response{parts: []string{roleEv + deltaEv(`{"content":"Hello"}`) + strings.TrimSuffix(finishEv("stop"), "\n")}},
		want:    []model.Chunk{start(0, "text"), text(0, "Hello")},
		wantErr: perr("STREAM", "stream ended before [DONE]"),
	}, {
		name: "event-stream with a charset",
		resp: response{parts: []string{textMessage}, contentType: "text/event-stream; charset=utf-8"},
		want: textChunks,
	}, {
		name: "length without usage",
		resp: response{parts: []string{deltaEv(`{"content":"Once upon"}`), finishEv("length"), doneEv}},
		want: []model.Chunk{start(0, "text"), text(0, "Once upon"), end(0), finish("max-tokens")},
	}, {
		name: "content_filter",
		resp: response{parts: []string{roleEv, finishEv("content_filter"), usageEv, doneEv}},
		want: []model.Chunk{use(12, 34), {Type: model.Finish, Reason: "error", Error: `model stopped with finish_reason "content_filter"`}},
	}, {
		name: "finish and usage in one event",
		resp: response{parts: []string{deltaEv(`{"content":"ok"}`), data(`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`), doneEv}},
		want: []model.Chunk{start(0, "text"), text(0, "ok"), end(0), use(1, 2), finish("stop")},
	}, {
		name:    "401",
		resp:    response{status: 401, body: `{"error":{"message":"Authentication Fails (no such user)","type":"authentication_error","param":null,"code":"invalid_request_error"}}`},
		wantErr: perr("AUTH", "Authentication Fails (no such user)"),
	}, {
		name:    "403 without JSON",
		resp:    response{status: 403, body: "forbidden\n"},
		wantErr: perr("AUTH", "HTTP 403 Forbidden: forbidden"),
	}, {
		name:    "429",
		resp:    response{status: 429, body: `{"error":{"message":"Rate limit reached","type":"rate_limit_error","code":null}}`},
		wantErr: perr("RATE_LIMIT", "Rate limit reached"),
	}, {
		name:    "500",
		resp:    response{status: 500, body: `{"error":{"message":"internal error","type":"api_error","code":500}}`},
		wantErr: perr("UNAVAILABLE", "internal error"),
	}, {
		name:    "503 with a long HTML body",
		resp:    response{status: 503, body: "<html>" + strings.Repeat("é", 200) + "</html>"},
		wantErr: perr("UNAVAILABLE", "HTTP 503 Service Unavailable: <html>"+strings.Repeat("é", 97)+"…"),
	}, {
		name:    "400",
		resp:    response{status: 400, body: `{"error":{"message":"Invalid max_tokens value","type":"invalid_request_error","code":"invalid_request_error"}}`},
		wantErr: perr("BAD_REQUEST", "Invalid max_tokens value"),
	}, {
		name:    "404",
		resp:    response{status: 404},
		wantErr: perr("BAD_REQUEST", "HTTP 404 Not Found"),
	}, {
		name:    "200 with a JSON error body",
		resp:    response{status: 200, body: `{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}`},
		wantErr: perr("BAD_REQUEST", "Insufficient Balance"),
	}, {
		name:    "200 with a JSON error body and one of our codes",
		resp:    response{status: 200, body: `{"error":{"message":"slow down","code":"RATE_LIMIT"}}`},
		wantErr: perr("RATE_LIMIT", "slow down"),
	}, {
		name:    "200 with an HTML body",
		resp:    response{status: 200, contentType: "text/html; charset=utf-8", body: "<html>please log in</html>\n"},
		wantErr: perr("BAD_REQUEST", `HTTP 200 OK with Content-Type "text/html; charset=utf-8", not text/event-stream: <html>please log in</html>`),
	}, {
		name:    "200 with JSON that is not an error",
		resp:    response{status: 200, body: `{"choices":[]}`},
		wantErr: perr("BAD_REQUEST", `HTTP 200 OK with Content-Type "application/json", not text/event-stream: {"choices":[]}`),
	}, {
		name:    "500 with one of our codes",
		resp:    response{status: 500, body: `{"error":{"message":"script exhausted: re-record","type":"api_error","code":"REPLAY"}}`},
		wantErr: perr("REPLAY", "script exhausted: re-record"),
	}, {
		name:    "error event with our code",
		resp:    response{parts: []string{broken, data(`{"error":{"message":"slow down","code":"RATE_LIMIT"}}`)}},
		want:    brokenChunks,
		wantErr: perr("RATE_LIMIT", "slow down"),
	}, {
		name:    "error event with a foreign code",
		resp:    response{parts: []string{broken, data(`{"error":{"message":"overloaded","type":"server_error","code":"overloaded"}}`), doneEv}},
		want:    brokenChunks,
		wantErr: perr("STREAM", "overloaded"),
	}, {
		name:    "stream ends without [DONE]",
		resp:    response{parts: []string{broken, finishEv("stop")}},
		want:    brokenChunks,
		wantErr: perr("STREAM", "stream ended before [DONE]"),
	}, {
		name:    "[DONE] without finish_reason",
		resp:    response{parts: []string{broken, doneEv}},
		want:    brokenChunks,
		wantErr: perr("STREAM", "stream ended without a finish_reason"),
	}, {
		name:    "unparsable event",
		resp:    response{parts: []string{broken, data(`{"choices":[`)}},
		want:    brokenChunks,
		wantErr: perr("STREAM", `bad stream event {"choices":[: unexpected end of JSON input`),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSSEServer(t, tc.resp)
			got, gotErr := collect(t, New(Config{APIKey: "k", BaseURL: srv.URL}), model.Request{})
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("chunks (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantErr, gotErr); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStreamDroppedConnection(t *testing.T) {
	srv := newSSEServer(t, response{parts: []string{roleEv, deltaEv(`{"content":"Hel"}`)}, drop: true})
	got, gotErr := collect(t, New(Config{BaseURL: srv.URL}), model.Request{})
	if diff := cmp.Diff([]model.Chunk{start(0, "text"), text(0, "Hel")}, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
	if gotErr == nil || gotErr.Code != "STREAM" || !strings.HasPrefix(gotErr.Message, "read stream: ") {
		t.Errorf("error = %v, want STREAM: read stream: …", gotErr)
	}
}

func TestStreamCancelHungStream(t *testing.T) {
	gone := make(chan struct{})
	srv := newSSEServer(t, response{parts: []string{roleEv, deltaEv(`{"content":"Hel"}`)}, hang: true, gone: gone})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var got []model.Chunk
	err := New(Config{BaseURL: srv.URL}).Stream(ctx, model.Request{}, func(c model.Chunk) error {
		got = append(got, c)
		if c.Type == model.TextDelta {
			cancel() // the server now hangs: only the cancellation can end the stream
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Stream = %v, want context.Canceled", err)
	}
	if diff := cmp.Diff([]model.Chunk{start(0, "text"), text(0, "Hel")}, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
	<-gone // the server saw the client go away: the body was closed
}

func TestStreamCancelBeforeResponse(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	srv := newSSEServer(t)
	err := New(Config{BaseURL: srv.URL}).Stream(ctx, model.Request{}, func(model.Chunk) error { return nil })
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Stream = %v, want context.Canceled", err)
	}
}

func TestStreamEmitError(t *testing.T) {
	srv := newSSEServer(t, response{parts: []string{toolsMessage}})
	stop := errors.New("stop here")
	var n int
	err := New(Config{BaseURL: srv.URL}).Stream(context.Background(), model.Request{}, func(model.Chunk) error {
		n++
		if n == 3 {
			return stop
		}
		return nil
	})
	if err != stop || n != 3 {
		t.Errorf("Stream = %v after %d chunks, want %v after 3", err, n, stop)
	}
}

func TestStreamConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, gotErr := collect(t, New(Config{BaseURL: url}), model.Request{})
	if gotErr == nil || gotErr.Code != "UNAVAILABLE" {
		t.Errorf("error = %v, want UNAVAILABLE", gotErr)
	}
}

func TestRequest(t *testing.T) {
	ok := response{parts: []string{finishEv("stop"), doneEv}}
	full := model.Request{
		SessionID: "s1", SpawnedBy: "call_parent", Cwd: "/tmp/w",
		Model:  "deepseek-reasoner",
		System: "You are <terse> & helpful.",
		Messages: []model.Message{
			{Role: "user", Content: "list and read"},
			{Role: "assistant", Content: "", Reasoning: "secret thoughts", ToolCalls: []model.ToolCall{
				{ID: "call_a", Name: "list_dir", Arguments: `{"path":"."}`},
				{ID: "call_b", Name: "todo_write"},
			}},
			{Role: "tool", ToolCallID: "call_a", Content: "a.go"},
			{Role: "tool", ToolCallID: "call_b", Content: "ok"},
		},
		Tools: []model.ToolSpec{
			{Name: "list_dir", Description: "List a directory.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Name: "todo_write", Description: "Write the plan."},
		},
	}
	type testCase struct {
		name       string
		cfg        Config
		req        model.Request
		wantPath   string
		wantHeader map[string]string // "" value: header absent
		wantBody   string
	}
	tests := []testCase{{
		name:     "full",
		cfg:      Config{APIKey: "sk-1", Model: "ignored", MaxTokens: 1000},
		req:      full,
		wantPath: "/chat/completions",
		wantHeader: map[string]string{
			"Authorization": "Bearer sk-1", "Content-Type": "application/json",
			"Accept": "text/event-stream", "X-Acpsnap-Spawned-By": "call_parent",
		},
		wantBody: `{"model":"deepseek-reasoner","messages":[
			{"role":"system","content":"You are <terse> & helpful."},
			{"role":"user","content":"list and read"},
			{"role":"assistant","content":"","tool_calls":[
				{"id":"call_a","type":"function","function":{"name":"list_dir","arguments":"{\"path\":\".\"}"}},
				{"id":"call_b","type":"function","function":{"name":"todo_write","arguments":"{}"}}]},
			{"role":"tool","content":"a.go","tool_call_id":"call_a"},
			{"role":"tool","content":"ok","tool_call_id":"call_b"}],
			"tools":[
				{"type":"function","function":{"name":"list_dir","description":"List a directory.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}},
				{"type":"function","function":{"name":"todo_write","description":"Write the plan.","parameters":{"type":"object","properties":{}}}}],
			"stream":true,"stream_options":{"include_usage":true},"max_tokens":1000}`,
	}, {
		name:       "defaults, base URL with /v1/",
		cfg:        Config{APIKey: "sk-2"},
		req:        model.Request{Messages: []model.Message{{Role: "user", Content: "hi"}}},
		wantPath:   "/v1/chat/completions",
		wantHeader: map[string]string{"Authorization": "Bearer sk-2", "X-Acpsnap-Spawned-By": ""},
		wantBody:   `{"model":"deepseek-chat","messages":[{"role":"user","content":"hi"}],"stream":true,"stream_options":{"include_usage":true}}`,
	}, {
		name:     "request max tokens wins",
		cfg:      Config{MaxTokens: 5},
		req:      model.Request{MaxTokens: 7},
		wantPath: "/chat/completions",
		wantBody: `{"model":"deepseek-chat","messages":null,"stream":true,"stream_options":{"include_usage":true},"max_tokens":7}`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newSSEServer(t, ok)
			tc.cfg.BaseURL = srv.URL + "/"
			if strings.HasPrefix(tc.wantPath, "/v1") {
				tc.cfg.BaseURL = srv.URL + "/v1/"
			}
			if _, err := collect(t, New(tc.cfg), tc.req); err != nil {
				t.Fatal(err)
			}
			reqs := srv.recorded()
			if len(reqs) != 1 {
				t.Fatalf("server got %d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if r.Method != http.MethodPost || r.Path != tc.wantPath {
				t.Errorf("request line = %s %s, want POST %s", r.Method, r.Path, tc.wantPath)
			}
			for k, want := range tc.wantHeader {
				if got := r.Header.Get(k); got != want {
					t.Errorf("header %s = %q, want %q", k, got, want)
				}
			}
			if diff := cmp.Diff(decodeJSON(t, []byte(tc.wantBody)), decodeJSON(t, r.Body)); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRequestUnknownRole(t *testing.T) {
	err := New(Config{}).Stream(context.Background(), model.Request{Messages: []model.Message{{Role: "user"}, {Role: "robot"}}}, nil)
	want := `deepseek: build request: messages[1]: unknown role "robot"`
	if err == nil || err.Error() != want {
		t.Errorf("Stream = %v, want %s", err, want)
	}
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return v
}
