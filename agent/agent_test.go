package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

func TestInitialize(t *testing.T) {
	r := newRig(t, newScript().provider(), nil, nil)
	resp := r.init(acp.ClientCapabilities{})
	if resp.ProtocolVersion != 1 {
		t.Errorf("initialize = protocol %d, want 1", resp.ProtocolVersion)
	}
	// What it advertises is what it serves (TestLoadSessionAfterRestart,
	// TestForkSession, the session-list, session-load-after-restart and
	// session-fork scenarios).
	want := acp.AgentCapabilities{LoadSession: true, SessionCapabilities: acp.SessionCapabilities{
		List: &acp.SessionListCapabilities{}, Resume: &acp.SessionResumeCapabilities{}, Fork: &acp.SessionForkCapabilities{}, Close: &acp.SessionCloseCapabilities{}}}
	if diff := cmp.Diff(want, resp.AgentCapabilities); diff != "" {
		t.Errorf("agentCapabilities (-want +got):\n%s", diff)
	}
}

func TestServeRejectsBadConfig(t *testing.T) {
	type testCase struct {
		name string
		cfg  Config
		want string
	}
	prov := newScript().provider()
	for _, tc := range []testCase{
		{"no provider", Config{SessionsDir: "x"}, "model.Provider is required"},
		{"no sessions dir", Config{Provider: prov}, "SessionsDir is required"},
		{"bad permission", Config{Provider: prov, SessionsDir: "x", Permission: "never"}, `permission mode "never"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Serve(context.Background(), tc.cfg, strings.NewReader(""), &strings.Builder{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Serve error = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestNewSessionRejectsInvalidParams(t *testing.T) {
	type testCase struct {
		name string
		req  func(cwd string) acp.NewSessionRequest
		want string
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	stdio := acp.McpServer{Stdio: &acp.McpServerStdio{Name: "x", Command: "x", Args: []string{}, Env: []acp.EnvVariable{}}}
	for _, tc := range []testCase{
		{"relative cwd", func(string) acp.NewSessionRequest {
			return acp.NewSessionRequest{Cwd: "rel/dir", McpServers: []acp.McpServer{}}
		}, `cwd must be an absolute path, got "rel/dir"`},
		{"missing cwd", func(cwd string) acp.NewSessionRequest {
			return acp.NewSessionRequest{Cwd: filepath.Join(cwd, "nope"), McpServers: []acp.McpServer{}}
		}, "is not an existing directory"},
		{"cwd is a file", func(string) acp.NewSessionRequest {
			return acp.NewSessionRequest{Cwd: file, McpServers: []acp.McpServer{}}
		}, "is not an existing directory"},
		{"mcp server over http", func(cwd string) acp.NewSessionRequest {
			return acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{{Http: &acp.McpServerHttpInline{Name: "h", Url: "http://127.0.0.1:1", Headers: []acp.HttpHeader{}}}}}
		}, "mcpServers[0]: only stdio MCP servers are supported"},
		{"mcp server name with __", func(cwd string) acp.NewSessionRequest {
			bad := acp.McpServer{Stdio: &acp.McpServerStdio{Name: "a__b", Command: "x", Args: []string{}, Env: []acp.EnvVariable{}}}
			return acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{bad}}
		}, `name "a__b"`},
		{"mcp server twice", func(cwd string) acp.NewSessionRequest {
			return acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{stdio, stdio}}
		}, `mcpServers[1]: name "x" is given twice`},
		{"additional directories", func(cwd string) acp.NewSessionRequest {
			return acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}, AdditionalDirectories: []string{cwd}}
		}, "additionalDirectories are not supported"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, newScript().provider(), nil, nil)
			r.init(acp.ClientCapabilities{})
			_, err := r.conn.NewSession(r.ctx(), tc.req(r.cwd))
			assertRPCError(t, err, -32602, tc.want)
			entries, _ := os.ReadDir(r.cfg.SessionsDir)
			if len(entries) != 0 {
				t.Errorf("a rejected session/new left %d entries in the sessions dir", len(entries))
			}
		})
	}
}

func TestPromptUnknownSession(t *testing.T) {
	r := newRig(t, newScript().provider(), nil, nil)
	r.init(acp.ClientCapabilities{})
	_, err := r.prompt("nope", "hi")
	assertRPCError(t, err, -32602, `unknown session "nope"`)
}

// assertRPCError checks a JSON-RPC error's code and that its data mentions want.
func assertRPCError(t *testing.T, err error, code int, want string) {
	t.Helper()
	var re *acp.RequestError
	if !errors.As(err, &re) {
		t.Fatalf("error = %v, want a JSON-RPC error %d", err, code)
	}
	if re.Code != code || !strings.Contains(re.Message+" "+fmt.Sprint(re.Data), want) {
		t.Errorf("error = %s, want code %d mentioning %q", re.Error(), code, want)
	}
}

func TestTextTurnStreamsAndLogs(t *testing.T) {
	sc := newScript(chunks(
		model.Chunk{Type: model.BlockStart, Index: 0, BlockType: model.BlockReasoning},
		model.Chunk{Type: model.ReasoningDelta, Index: 0, Text: "hmm, "},
		model.Chunk{Type: model.ReasoningDelta, Index: 0, Text: "greet"},
		model.Chunk{Type: model.BlockEnd, Index: 0},
		model.Chunk{Type: model.BlockStart, Index: 1, BlockType: model.BlockText},
		model.Chunk{Type: model.TextDelta, Index: 1, Text: "Hello"},
		model.Chunk{Type: model.TextDelta, Index: 1, Text: ", world"},
		model.Chunk{Type: model.BlockEnd, Index: 1},
		model.Chunk{Type: model.Usage, InputTokens: 10, OutputTokens: 5},
		model.Chunk{Type: model.Finish, Reason: model.FinishStop},
	))
	r := newRig(t, sc.provider(), nil, nil)
	sid := r.session(acp.ClientCapabilities{})
	r.mustPrompt(sid, "say hello", acp.StopReasonEndTurn)

	wantUpdates := []string{
		sid + " thought hmm, ", sid + " thought greet",
		sid + " message Hello", sid + " message , world",
	}
	if diff := cmp.Diff(wantUpdates, r.client.summary()); diff != "" {
		t.Errorf("session updates (-want +got):\n%s", diff)
	}

	reqs := sc.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(reqs))
	}
	req := reqs[0]
	if req.SessionID != sid || req.SpawnedBy != "" || req.Cwd != r.cwd || req.Model != testModel {
		t.Errorf("request = session %q, spawnedBy %q, cwd %q, model %q", req.SessionID, req.SpawnedBy, req.Cwd, req.Model)
	}
	if diff := cmp.Diff([]model.Message{{Role: "user", Content: "say hello"}}, req.Messages); diff != "" {
		t.Errorf("request messages (-want +got):\n%s", diff)
	}
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Name)
	}
	if diff := cmp.Diff([]string{"read_file", "write_file", "edit_file", "list_dir", "bash", "fetch", "todo_write", "task"}, names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}

	l := r.log(sid)
	wantHeader := sessionlog.Header{Type: "session", Version: 1, ID: sid, CreatedAt: fixedClock().UnixMilli(), Cwd: r.cwd}
	if diff := cmp.Diff(wantHeader, l.Header); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	wantTypes := []string{"turn/start", "user/message", "step/start", "request/header"}
	for range 10 {
		wantTypes = append(wantTypes, "assistant/chunk")
	}
	wantTypes = append(wantTypes, "assistant/message", "step/end", "turn/end")
	if diff := cmp.Diff(wantTypes, types(l)); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	msgs := data[assistantMessageData](t, l, "assistant/message")
	if diff := cmp.Diff([]assistantMessageData{{Turn: 1, Step: 1, ID: "id-3", Text: "Hello, world", Reasoning: "hmm, greet"}}, msgs); diff != "" {
		t.Errorf("assistant/message (-want +got):\n%s", diff)
	}
	checkTurnEnds(t, l, endReason{Kind: "completed"})
	hdr := data[requestHeaderData](t, l, "request/header")
	if len(hdr) != 1 || hdr[0].Model != testModel || !strings.Contains(hdr[0].System, r.cwd) || len(hdr[0].Tools) != 8 {
		t.Errorf("request/header = %+v", hdr)
	}
	users := data[struct {
		Turn    int
		ID      string
		Content []map[string]any
	}](t, l, "user/message")
	if len(users) != 1 || users[0].Content[0]["text"] != "say hello" {
		t.Errorf("user/message = %+v", users)
	}
}

func TestSecondTurnSeesHistory(t *testing.T) {
	sc := newScript(say("one"), say("two"))
	r := newRig(t, sc.provider(), nil, nil)
	sid := r.session(acp.ClientCapabilities{})
	r.mustPrompt(sid, "first", acp.StopReasonEndTurn)
	r.mustPrompt(sid, "second", acp.StopReasonEndTurn)
	want := []model.Message{
		{Role: "user", Content: "first"},
		{Role: "assistant", Content: "one"},
		{Role: "user", Content: "second"},
	}
	if diff := cmp.Diff(want, sc.requests()[1].Messages); diff != "" {
		t.Errorf("second request messages (-want +got):\n%s", diff)
	}
	turns := data[turnData](t, r.log(sid), "turn/start")
	if diff := cmp.Diff([]turnData{{Turn: 1}, {Turn: 2}}, turns); diff != "" {
		t.Errorf("turn/start (-want +got):\n%s", diff)
	}
}

func TestCreatedAtStrictlyIncreases(t *testing.T) {
	r := newRig(t, newScript().provider(), nil, nil)
	r.init(acp.ClientCapabilities{})
	var ids []string
	for range 3 {
		resp, err := r.conn.NewSession(r.ctx(), acp.NewSessionRequest{Cwd: r.cwd, McpServers: []acp.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, string(resp.SessionId))
	}
	var got []int64
	for _, id := range ids {
		got = append(got, r.log(id).Header.CreatedAt)
	}
	base := fixedClock().UnixMilli()
	if diff := cmp.Diff([]int64{base, base + 1, base + 2}, got); diff != "" {
		t.Errorf("createdAt with a frozen clock (-want +got):\n%s", diff)
	}
}

func TestRetryOnceThenSucceed(t *testing.T) {
	prefix := []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: model.BlockText},
		{Type: model.TextDelta, Index: 0, Text: "par"},
	}
	sc := newScript(fail("RATE_LIMIT", "slow down", prefix...), say("done"))
	r := newRig(t, sc.provider(), nil, nil)
	sid := r.session(acp.ClientCapabilities{})
	r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
	if n := len(sc.requests()); n != 2 {
		t.Errorf("%d model calls, want 2", n)
	}
	l := r.log(sid)
	var got []string
	for _, c := range data[chunkData](t, l, "assistant/chunk") {
		if c.Step != 1 {
			t.Errorf("chunk in step %d, want every chunk in step 1", c.Step)
		}
		got = append(got, c.Chunk.Type+"/"+c.Chunk.Reason+"/"+c.Chunk.Code+"/"+c.Chunk.Error)
	}
	want := []string{
		"block-start///", "text-delta///", "finish/error/RATE_LIMIT/slow down",
		"block-start///", "text-delta///", "block-end///", "finish/stop//",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
	if n := len(data[stepData](t, l, "request/header")); n != 1 {
		t.Errorf("%d request/header events, want 1 (the retry is in the same step)", n)
	}
}

func TestProviderErrorsEndTheTurn(t *testing.T) {
	type testCase struct {
		name    string
		script  *script
		calls   int
		wantEnd endReason
		want    string // in the JSON-RPC error
	}
	for _, tc := range []testCase{
		{"not retryable", newScript(fail("AUTH", "bad key")), 1,
			endReason{Kind: "error", Message: "bad key", Code: "AUTH"}, "code:AUTH"},
		{"retried once only", newScript(fail("UNAVAILABLE", "down"), fail("UNAVAILABLE", "still down")), 2,
			endReason{Kind: "error", Message: "still down", Code: "UNAVAILABLE"}, "message:still down"},
		{"model error finish", newScript(chunks(model.Chunk{Type: model.Finish, Reason: model.FinishError, Error: "content filter"})), 1,
			endReason{Kind: "error", Message: "content filter"}, "message:content filter"},
		{"stream without finish", newScript(chunks(textChunks("x", "")[:2]...)), 1,
			endReason{Kind: "error", Message: "the model stream ended without a finish chunk", Code: "STREAM"}, "code:STREAM"},
		{"plain error", newScript(func(context.Context, model.Request, func(model.Chunk) error) error { return errors.New("boom") }), 1,
			endReason{Kind: "error", Message: "boom", Code: "INTERNAL"}, "code:INTERNAL"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newRig(t, tc.script.provider(), nil, nil)
			sid := r.session(acp.ClientCapabilities{})
			_, err := r.prompt(sid, "go")
			assertRPCError(t, err, -32603, tc.want)
			if n := len(tc.script.requests()); n != tc.calls {
				t.Errorf("%d model calls, want %d", n, tc.calls)
			}
			l := r.log(sid)
			checkTurnEnds(t, l, tc.wantEnd)
			chunks := data[chunkData](t, l, "assistant/chunk")
			last := chunks[len(chunks)-1].Chunk
			if last.Type != model.Finish || last.Reason != model.FinishError || last.Code != tc.wantEnd.Code {
				t.Errorf("last chunk = %+v, want finish{error, code %q}", last, tc.wantEnd.Code)
			}
		})
	}
}

func TestMaxTokens(t *testing.T) {
	cut := append(textChunks("partial", model.FinishMaxTokens)[:3:3], callChunks(call("c1", "bash", map[string]any{"command": "ec"}))...)
	cut[len(cut)-1].Reason = model.FinishMaxTokens
	sc := newScript(chunks(cut...))
	r := newRig(t, sc.provider(), nil, nil)
	sid := r.session(acp.ClientCapabilities{})
	r.mustPrompt(sid, "go", acp.StopReasonMaxTokens)
	l := r.log(sid)
	checkTurnEnds(t, l, endReason{Kind: "max-tokens"})
	if n := len(data[toolCallData](t, l, "tool/call")); n != 0 {
		t.Errorf("%d tool calls ran after max-tokens, want 0", n)
	}
}

func TestMaxSteps(t *testing.T) {
	list := call("c", "list_dir", map[string]any{})
	sc := newScript(use(list), use(list), use(list))
	r := newRig(t, sc.provider(), nil, func(c *Config) { c.MaxSteps = 2 })
	sid := r.session(acp.ClientCapabilities{})
	r.mustPrompt(sid, "loop", acp.StopReasonMaxTurnRequests)
	if n := len(sc.requests()); n != 2 {
		t.Errorf("%d model calls, want MaxSteps = 2", n)
	}
	checkTurnEnds(t, r.log(sid), endReason{Kind: "max-steps"})
}

func TestCancelDuringStream(t *testing.T) {
	ready := make(chan struct{})
	sc := newScript(hang(ready))
	r := newRig(t, sc.provider(), nil, nil)
	sid := r.session(acp.ClientCapabilities{})
	r.cancelWhen(sid, func() { <-ready })
	l := r.log(sid)
	want := []string{"turn/start", "user/message", "step/start", "request/header", "assistant/chunk", "assistant/chunk", "step/end", "turn/end"}
	if diff := cmp.Diff(want, types(l)); diff != "" {
		t.Errorf("event types (-want +got):\n%s", diff)
	}
	checkTurnEnds(t, l, endReason{Kind: "aborted", By: "user"})
}

func TestStdinEOFDisposesRunningTurn(t *testing.T) {
	ready := make(chan struct{})
	r := newRig(t, newScript(hang(ready)).provider(), nil, nil)
	sid := r.session(acp.ClientCapabilities{})
	go r.prompt(sid, "go") //nolint:errcheck // the answer races the shutdown; the log is what matters
	<-ready
	if err := r.close(); err != nil {
		t.Fatalf("Serve after EOF = %v, want nil", err)
	}
	l := r.log(sid)
	checkTurnEnds(t, l, endReason{Kind: "aborted", By: "disposed"})
}

func TestServeContextCancelDisposesTurns(t *testing.T) {
	ready := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	cfg := Config{Provider: newScript(hang(ready)).provider(), SessionsDir: t.TempDir(), NewID: counter(), Now: fixedClock}
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	defer toAgentW.Close()
	served := make(chan error, 1)
	go func() {
		served <- Serve(ctx, cfg, toAgentR, toClientW)
		toClientW.Close()
	}()
	conn := acp.NewClientSideConnection(&fakeClient{}, toAgentW, toClientR)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	callCtx, stop := context.WithTimeout(context.Background(), testTimeout)
	defer stop()
	if _, err := conn.Initialize(callCtx, acp.InitializeRequest{ProtocolVersion: 1}); err != nil {
		t.Fatal(err)
	}
	cwd := t.TempDir()
	s, err := conn.NewSession(callCtx, acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	go conn.Prompt(callCtx, acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("go")}}) //nolint:errcheck // the log is what matters
	<-ready
	cancel()
	if err := <-served; !errors.Is(err, context.Canceled) {
		t.Errorf("Serve = %v, want context.Canceled", err)
	}
	l, err := sessionlog.ReadFile(filepath.Join(cfg.SessionsDir, string(s.SessionId), sessionlog.FileName))
	if err != nil {
		t.Fatal(err)
	}
	checkTurnEnds(t, l, endReason{Kind: "aborted", By: "disposed"})
}

// TestRetryDelay: the retry waits RetryDelay, and a cancel during the wait
// aborts the turn without a second model call.
func TestRetryDelay(t *testing.T) {
	var calls atomic.Int32
	failed := make(chan struct{})
	prov := fakeProvider{StreamFunc: func(ctx context.Context, req model.Request, emit func(model.Chunk) error) error {
		if calls.Add(1) == 1 {
			defer close(failed)
			return &model.ProviderError{Code: "RATE_LIMIT", Message: "slow down"}
		}
		return errors.New("retried although the turn was cancelled during the delay")
	}}
	r := newRig(t, prov, nil, func(c *Config) { c.RetryDelay = time.Hour })
	sid := r.session(acp.ClientCapabilities{})
	r.cancelWhen(sid, func() { <-failed })
	if n := calls.Load(); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
	checkTurnEnds(t, r.log(sid), endReason{Kind: "aborted", By: "user"})
}
