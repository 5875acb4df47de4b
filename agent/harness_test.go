package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// testTimeout bounds every client call, so a hang fails instead of blocking.
const testTimeout = 20 * time.Second

// fakeProvider is a model.Provider whose behaviour is a func.
type fakeProvider struct {
	StreamFunc func(ctx context.Context, req model.Request, emit func(model.Chunk) error) error
}

func (p fakeProvider) Stream(ctx context.Context, req model.Request, emit func(model.Chunk) error) error {
	return p.StreamFunc(ctx, req, emit)
}

// attempt is one scripted model call.
type attempt func(ctx context.Context, req model.Request, emit func(model.Chunk) error) error

// script serves scripted attempts positionally per route (the request's
// SpawnedBy; "" is the primary session) and records every request.
type script struct {
	mu     sync.Mutex
	routes map[string][]attempt
	next   map[string]int
	reqs   []model.Request
}

func newScript(primary ...attempt) *script {
	return &script{routes: map[string][]attempt{"": primary}, next: map[string]int{}}
}

func (s *script) route(spawnedBy string, as ...attempt) *script {
	s.routes[spawnedBy] = as
	return s
}

func (s *script) provider() model.Provider { return fakeProvider{StreamFunc: s.stream} }

func (s *script) stream(ctx context.Context, req model.Request, emit func(model.Chunk) error) error {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	i := s.next[req.SpawnedBy]
	s.next[req.SpawnedBy]++
	as := s.routes[req.SpawnedBy]
	s.mu.Unlock()
	if i >= len(as) {
		return &model.ProviderError{Code: "REPLAY", Message: fmt.Sprintf("no attempt %d for route %q", i, req.SpawnedBy)}
	}
	return as[i](ctx, req, emit)
}

func (s *script) requests() []model.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]model.Request(nil), s.reqs...)
}

// emitAll emits chunks in order.
func emitAll(emit func(model.Chunk) error, cs []model.Chunk) error {
	for _, c := range cs {
		if err := emit(c); err != nil {
			return err
		}
	}
	return nil
}

// chunks is an attempt that emits cs and ends.
func chunks(cs ...model.Chunk) attempt {
	return func(ctx context.Context, req model.Request, emit func(model.Chunk) error) error {
		return emitAll(emit, cs)
	}
}

// textChunks is one text block and its finish.
func textChunks(text, reason string) []model.Chunk {
	return []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: model.BlockText},
		{Type: model.TextDelta, Index: 0, Text: text},
		{Type: model.BlockEnd, Index: 0},
		{Type: model.Finish, Reason: reason},
	}
}

// say is an attempt answering text.
func say(text string) attempt { return chunks(textChunks(text, model.FinishStop)...) }

// call builds a tool call with JSON arguments.
func call(id, name string, args any) model.ToolCall {
	b, err := json.Marshal(args)
	if err != nil {
		panic(err)
	}
	return model.ToolCall{ID: id, Name: name, Arguments: string(b)}
}

// callChunks is one tool-call block per call (arguments split in two
// deltas) and a tool-calls finish.
func callChunks(calls ...model.ToolCall) []model.Chunk {
	var cs []model.Chunk
	for i, c := range calls {
		half := len(c.Arguments) / 2
		cs = append(cs,
			model.Chunk{Type: model.BlockStart, Index: i, BlockType: model.BlockToolCall},
			model.Chunk{Type: model.ToolCallDelta, Index: i, ID: c.ID, Name: c.Name, ArgumentsDelta: c.Arguments[:half]},
			model.Chunk{Type: model.ToolCallDelta, Index: i, ID: c.ID, ArgumentsDelta: c.Arguments[half:]},
			model.Chunk{Type: model.BlockEnd, Index: i})
	}
	return append(cs, model.Chunk{Type: model.Finish, Reason: model.FinishToolCalls})
}

// use is an attempt asking for tool calls.
func use(calls ...model.ToolCall) attempt { return chunks(callChunks(calls...)...) }

// fail is an attempt that emits prefix and fails with a provider error.
func fail(code, msg string, prefix ...model.Chunk) attempt {
	return func(ctx context.Context, req model.Request, emit func(model.Chunk) error) error {
		if err := emitAll(emit, prefix); err != nil {
			return err
		}
		return &model.ProviderError{Code: code, Message: msg}
	}
}

// hang emits a partial text block, closes ready and waits for cancellation.
func hang(ready chan<- struct{}) attempt {
	return func(ctx context.Context, req model.Request, emit func(model.Chunk) error) error {
		if err := emitAll(emit, []model.Chunk{
			{Type: model.BlockStart, Index: 0, BlockType: model.BlockText},
			{Type: model.TextDelta, Index: 0, Text: "thinking about it"},
		}); err != nil {
			return err
		}
		close(ready)
		<-ctx.Done()
		return ctx.Err()
	}
}

// fakeClient is an acp.Client whose methods are funcs; a nil func answers
// "method not found". Session updates are recorded.
type fakeClient struct {
	ReadTextFileFunc        func(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error)
	WriteTextFileFunc       func(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error)
	RequestPermissionFunc   func(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error)
	CreateTerminalFunc      func(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error)
	KillTerminalFunc        func(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error)
	TerminalOutputFunc      func(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error)
	ReleaseTerminalFunc     func(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error)
	WaitForTerminalExitFunc func(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error)

	mu      sync.Mutex
	updates []acp.SessionNotification
}

var _ acp.Client = (*fakeClient)(nil)

func orNotFound[Req, Resp any](f func(context.Context, Req) (Resp, error), ctx context.Context, req Req, method string) (Resp, error) {
	if f == nil {
		var zero Resp
		return zero, acp.NewMethodNotFound(method)
	}
	return f(ctx, req)
}

func (c *fakeClient) ReadTextFile(ctx context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return orNotFound(c.ReadTextFileFunc, ctx, p, acp.ClientMethodFsReadTextFile)
}

func (c *fakeClient) WriteTextFile(ctx context.Context, p acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return orNotFound(c.WriteTextFileFunc, ctx, p, acp.ClientMethodFsWriteTextFile)
}

func (c *fakeClient) RequestPermission(ctx context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return orNotFound(c.RequestPermissionFunc, ctx, p, acp.ClientMethodSessionRequestPermission)
}

func (c *fakeClient) CreateTerminal(ctx context.Context, p acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return orNotFound(c.CreateTerminalFunc, ctx, p, acp.ClientMethodTerminalCreate)
}

func (c *fakeClient) KillTerminal(ctx context.Context, p acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return orNotFound(c.KillTerminalFunc, ctx, p, acp.ClientMethodTerminalKill)
}

func (c *fakeClient) TerminalOutput(ctx context.Context, p acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return orNotFound(c.TerminalOutputFunc, ctx, p, acp.ClientMethodTerminalOutput)
}

func (c *fakeClient) ReleaseTerminal(ctx context.Context, p acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return orNotFound(c.ReleaseTerminalFunc, ctx, p, acp.ClientMethodTerminalRelease)
}

func (c *fakeClient) WaitForTerminalExit(ctx context.Context, p acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return orNotFound(c.WaitForTerminalExitFunc, ctx, p, acp.ClientMethodTerminalWaitForExit)
}

func (c *fakeClient) SessionUpdate(ctx context.Context, n acp.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n)
	return nil
}

// summary renders the recorded updates compactly, one string each:
// "<sessionId> <kind> <details>".
func (c *fakeClient) summary() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, n := range c.updates {
		out = append(out, string(n.SessionId)+" "+describe(n.Update))
	}
	return out
}

func describe(u acp.SessionUpdate) string {
	switch {
	case u.AgentMessageChunk != nil:
		return "message " + u.AgentMessageChunk.Content.Text.Text
	case u.AgentThoughtChunk != nil:
		return "thought " + u.AgentThoughtChunk.Content.Text.Text
	case u.ToolCall != nil:
		return fmt.Sprintf("tool_call %s %s %s %q", u.ToolCall.ToolCallId, u.ToolCall.Status, u.ToolCall.Kind, u.ToolCall.Title)
	case u.ToolCallUpdate != nil:
		s := "tool_call_update " + string(u.ToolCallUpdate.ToolCallId)
		if u.ToolCallUpdate.Status != nil {
			s += " " + string(*u.ToolCallUpdate.Status)
		}
		for _, c := range u.ToolCallUpdate.Content {
			switch {
			case c.Content != nil && c.Content.Content.Text != nil:
				s += fmt.Sprintf(" %q", c.Content.Content.Text.Text)
			case c.Terminal != nil:
				s += " terminal:" + c.Terminal.TerminalId
			}
		}
		return s
	case u.Plan != nil:
		var parts []string
		for _, e := range u.Plan.Entries {
			parts = append(parts, string(e.Status)+":"+e.Content)
		}
		return "plan " + strings.Join(parts, ",")
	}
	b, _ := json.Marshal(u)
	return "other " + string(b)
}

// rig is an agent served over pipes and a client connection to it.
type rig struct {
	t      *testing.T
	cfg    Config
	cwd    string
	client *fakeClient
	conn   *acp.ClientSideConnection
	stdin  *io.PipeWriter
	served chan error
	once   sync.Once
	err    error
}

// counter makes deterministic ids "id-1", "id-2", ….
func counter() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return fmt.Sprintf("id-%d", n)
	}
}

// fixedClock always says the same millisecond.
func fixedClock() time.Time { return time.UnixMilli(1_700_000_000_000) }

// newRig starts Serve with prov and a client. mod may adjust the config.
func newRig(t *testing.T, prov model.Provider, client *fakeClient, mod func(*Config)) *rig {
	t.Helper()
	return newRigAt(t, prov, client, mod, t.TempDir())
}

// newRigAt is newRig with sessions created in cwd.
func newRigAt(t *testing.T, prov model.Provider, client *fakeClient, mod func(*Config), cwd string) *rig {
	t.Helper()
	if client == nil {
		client = &fakeClient{}
	}
	cfg := Config{Provider: prov, SessionsDir: t.TempDir(), Model: testModel, NewID: counter(), Now: fixedClock}
	if mod != nil {
		mod(&cfg)
	}
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	r := &rig{t: t, cfg: cfg, cwd: cwd, client: client, stdin: toAgentW, served: make(chan error, 1)}
	go func() {
		err := Serve(context.Background(), cfg, toAgentR, toClientW)
		toClientW.Close()
		r.served <- err
	}()
	r.conn = acp.NewClientSideConnection(client, toAgentW, toClientR)
	r.conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(func() { r.close() })
	return r
}

func (r *rig) ctx() context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	r.t.Cleanup(cancel)
	return ctx
}

// init runs initialize with caps.
func (r *rig) init(caps acp.ClientCapabilities) acp.InitializeResponse {
	r.t.Helper()
	resp, err := r.conn.Initialize(r.ctx(), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: caps})
	if err != nil {
		r.t.Fatalf("initialize: %v", err)
	}
	return resp
}

// session initializes with caps and creates a session in the rig's cwd.
func (r *rig) session(caps acp.ClientCapabilities) string {
	r.t.Helper()
	r.init(caps)
	resp, err := r.conn.NewSession(r.ctx(), acp.NewSessionRequest{Cwd: r.cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		r.t.Fatalf("session/new: %v", err)
	}
	return string(resp.SessionId)
}

func (r *rig) prompt(sid, text string) (acp.PromptResponse, error) {
	return r.conn.Prompt(r.ctx(), acp.PromptRequest{SessionId: acp.SessionId(sid), Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
}

// mustPrompt prompts and requires stop reason want.
func (r *rig) mustPrompt(sid, text string, want acp.StopReason) {
	r.t.Helper()
	resp, err := r.prompt(sid, text)
	if err != nil {
		r.t.Fatalf("session/prompt: %v", err)
	}
	if resp.StopReason != want {
		r.t.Fatalf("stop reason = %q, want %q", resp.StopReason, want)
	}
}

// close ends the agent's stdin and waits for Serve to return.
func (r *rig) close() error {
	r.once.Do(func() {
		r.stdin.Close()
		select {
		case r.err = <-r.served:
		case <-time.After(testTimeout):
			r.err = errors.New("Serve did not return after stdin EOF")
		}
	})
	return r.err
}

// log reads a session's log (the rig is closed first, so logs are final).
func (r *rig) log(sid string) *sessionlog.Log {
	r.t.Helper()
	if err := r.close(); err != nil {
		r.t.Fatalf("Serve: %v", err)
	}
	l, err := sessionlog.ReadFile(filepath.Join(r.cfg.SessionsDir, sid, sessionlog.FileName))
	if err != nil {
		r.t.Fatal(err)
	}
	return l
}

// types lists a log's event types.
func types(l *sessionlog.Log) []string {
	var out []string
	for _, e := range l.Events {
		out = append(out, e.Type)
	}
	return out
}

// data decodes the data of every event of type typ into a slice of T.
func data[T any](t *testing.T, l *sessionlog.Log, typ string) []T {
	t.Helper()
	var out []T
	for _, e := range l.Events {
		if e.Type != typ {
			continue
		}
		var v T
		if err := json.Unmarshal(e.Data, &v); err != nil {
			t.Fatalf("%s:%d: %v", l.Name, e.Line, err)
		}
		out = append(out, v)
	}
	return out
}

// toolMessages returns the tool messages of the last request the provider
// saw, as "callId: content" (error-ness is in the log, not the request).
func toolMessages(reqs []model.Request) []string {
	var out []string
	if len(reqs) == 0 {
		return nil
	}
	for _, m := range reqs[len(reqs)-1].Messages {
		if m.Role == "tool" {
			out = append(out, m.ToolCallID+": "+m.Content)
		}
	}
	return out
}

// cancelWhen prompts in the background, waits for ready to return, sends
// session/cancel and requires the prompt to answer cancelled.
func (r *rig) cancelWhen(sid string, ready func()) {
	r.t.Helper()
	done := make(chan acp.StopReason, 1)
	go func() {
		resp, err := r.prompt(sid, "go")
		if err != nil {
			r.t.Errorf("prompt: %v", err)
		}
		done <- resp.StopReason
	}()
	ready()
	if err := r.conn.Cancel(r.ctx(), acp.CancelNotification{SessionId: acp.SessionId(sid)}); err != nil {
		r.t.Fatal(err)
	}
	if got := <-done; got != acp.StopReasonCancelled {
		r.t.Errorf("stop reason = %q, want cancelled", got)
	}
}

// checkTurnEnds compares a log's turn/end events with reasons (turns 1, 2, …).
func checkTurnEnds(t *testing.T, l *sessionlog.Log, reasons ...endReason) {
	t.Helper()
	var want []turnEndData
	for i, r := range reasons {
		want = append(want, turnEndData{Turn: i + 1, Reason: r})
	}
	if diff := cmp.Diff(want, data[turnEndData](t, l, "turn/end")); diff != "" {
		t.Errorf("%s: turn/end (-want +got):\n%s", l.Name, diff)
	}
}
