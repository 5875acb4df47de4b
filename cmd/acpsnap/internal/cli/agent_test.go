package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// Bounds of the subprocess tests: nothing waits longer than this.
const (
	agentTimeout = 30 * time.Second // the whole conversation
	agentGrace   = 10 * time.Second // from stdin EOF to exit
)

// agentProcess is `acpsnap agent` in a subprocess: this test binary
// re-executed (see TestMain), its stdio on pipes the test owns.
type agentProcess struct {
	cmd    *exec.Cmd
	stdin  *os.File // the test's end of the agent's stdin
	stdout *os.File // the test's end of the agent's stdout
	stderr bytes.Buffer
	done   chan struct{} // closed when Wait returned
	err    error         // Wait's error, valid after done
}

// startAgent starts the agent subcommand with exactly env as environment.
// The cleanup kills it if the test did not stop it.
func startAgent(t *testing.T, env []string) *agentProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &agentProcess{stdin: inW, stdout: outR, done: make(chan struct{})}
	p.cmd = exec.Command(exe, "agent")
	p.cmd.Env, p.cmd.Stdin, p.cmd.Stdout, p.cmd.Stderr = env, inR, outW, &p.stderr
	p.cmd.WaitDelay = agentGrace
	err = p.cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		t.Fatal(err)
	}
	go func() {
		p.err = p.cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop(t)
		p.stdout.Close()
	})
	return p
}

// stop closes the agent's stdin and waits for it to exit, killing it
// after agentGrace. It returns the exit code (-1: killed).
func (p *agentProcess) stop(t *testing.T) int {
	t.Helper()
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(agentGrace):
		t.Errorf("agent did not exit within %v of stdin EOF; killing it", agentGrace)
		p.cmd.Process.Kill()
		select {
		case <-p.done:
		case <-time.After(agentGrace):
			t.Fatalf("agent (pid %d) survived SIGKILL for %v", p.cmd.Process.Pid, agentGrace)
		}
	}
	var ee *exec.ExitError
	if p.err != nil && !errors.As(p.err, &ee) {
		t.Errorf("wait for agent: %v", p.err)
	}
	return p.cmd.ProcessState.ExitCode()
}

// agentEnv is a minimal environment: no variable of the test process
// leaks into the agent except PATH.
func agentEnv(t *testing.T, vars ...string) []string {
	return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C", "TZ=UTC"}, vars...)
}

// seen is one session/update as the client saw it, reduced to what the
// test asserts.
type seen struct {
	Kind   string // the sessionUpdate discriminator
	Text   string // message and thought chunks
	CallID string // tool_call, tool_call_update
	Status string // tool_call, tool_call_update
}

// recordingClient is an independent ACP client that records the session
// updates it is sent and refuses everything else.
type recordingClient struct {
	mu      sync.Mutex
	updates []seen
}

func (c *recordingClient) seen() []seen {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]seen(nil), c.updates...)
}

func (c *recordingClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	var s seen
	switch u := n.Update; {
	case u.AgentThoughtChunk != nil:
		s = seen{Kind: "agent_thought_chunk", Text: contentText(u.AgentThoughtChunk.Content)}
	case u.AgentMessageChunk != nil:
		s = seen{Kind: "agent_message_chunk", Text: contentText(u.AgentMessageChunk.Content)}
	case u.ToolCall != nil:
		s = seen{Kind: "tool_call", CallID: string(u.ToolCall.ToolCallId), Status: string(u.ToolCall.Status)}
	case u.ToolCallUpdate != nil:
		s = seen{Kind: "tool_call_update", CallID: string(u.ToolCallUpdate.ToolCallId)}
		if u.ToolCallUpdate.Status != nil {
			s.Status = string(*u.ToolCallUpdate.Status)
		}
	default:
		b, _ := json.Marshal(u)
		s = seen{Kind: "other", Text: string(b)}
	}
	c.mu.Lock()
	c.updates = append(c.updates, s)
	c.mu.Unlock()
	return nil
}

func contentText(b acp.ContentBlock) string {
	if b.Text == nil {
		return "<not text>"
	}
	return b.Text.Text
}

func (c *recordingClient) RequestPermission(context.Context, acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	return acp.RequestPermissionResponse{}, acp.NewMethodNotFound(acp.ClientMethodSessionRequestPermission)
}

func (c *recordingClient) ReadTextFile(context.Context, acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	return acp.ReadTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsReadTextFile)
}

func (c *recordingClient) WriteTextFile(context.Context, acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, acp.NewMethodNotFound(acp.ClientMethodFsWriteTextFile)
}

func (c *recordingClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalCreate)
}

func (c *recordingClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalKill)
}

func (c *recordingClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalOutput)
}

func (c *recordingClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalRelease)
}

func (c *recordingClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, acp.NewMethodNotFound(acp.ClientMethodTerminalWaitForExit)
}

// The scripted DeepSeek-shaped model of the record test.
const (
	callID    = "call_read_1"
	notesText = "hello from the workspace\n"
)

// recordScript is the model: call 1 reasons and calls read_file, its
// arguments in three pieces; call 2 answers. The chunks are in the order
// the DeepSeek adapter rebuilds them, so the recorded log derives back to
// exactly this script.
var recordScript = replay.Script{
	{Kind: replay.KindChunks, Chunks: []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: model.BlockReasoning},
		{Type: model.ReasoningDelta, Index: 0, Text: "The user wants the notes; "},
		{Type: model.ReasoningDelta, Index: 0, Text: "read notes.txt."},
		{Type: model.BlockEnd, Index: 0},
		{Type: model.BlockStart, Index: 1, BlockType: model.BlockToolCall},
		{Type: model.ToolCallDelta, Index: 1, ID: callID, Name: "read_file", ArgumentsDelta: `{"pa`},
		{Type: model.ToolCallDelta, Index: 1, ID: callID, ArgumentsDelta: `th":"no`},
		{Type: model.ToolCallDelta, Index: 1, ID: callID, ArgumentsDelta: `tes.txt"}`},
		{Type: model.BlockEnd, Index: 1},
		{Type: model.Usage, InputTokens: 120, OutputTokens: 30},
		{Type: model.Finish, Reason: model.FinishToolCalls},
	}},
	{Kind: replay.KindChunks, Chunks: []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: model.BlockText},
		{Type: model.TextDelta, Index: 0, Text: "notes.txt says: "},
		{Type: model.TextDelta, Index: 0, Text: "hello from the workspace"},
		{Type: model.BlockEnd, Index: 0},
		{Type: model.Usage, InputTokens: 160, OutputTokens: 9},
		{Type: model.Finish, Reason: model.FinishStop},
	}},
}

// TestAgentRecord is the acceptance test of the reference agent: an
// independent ACP client drives `acpsnap agent` in record mode, in a real
// subprocess, against a scripted DeepSeek-shaped server.
func TestAgentRecord(t *testing.T) {
	srv, err := replay.NewServer(replay.ServerConfig{Primary: recordScript})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cwd, sessions := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(cwd, "notes.txt"), []byte(notesText), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startAgent(t, agentEnv(t, "ACPSNAP_MODE=record", "ACPSNAP_SESSIONS_DIR="+sessions,
		"DEEPSEEK_API_KEY=dummy", "DEEPSEEK_BASE_URL="+srv.URL()))

	ctx, cancel := context.WithTimeout(context.Background(), agentTimeout)
	defer cancel()
	client := &recordingClient{}
	conn := acp.NewClientSideConnection(client, p.stdin, p.stdout)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if _, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		code := p.stop(t)
		t.Fatalf("initialize: %v\nagent exit %d, stderr:\n%s", err, code, p.stderr.String())
	}
	sess, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	resp, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: sess.SessionId,
		Prompt: []acp.ContentBlock{acp.TextBlock("What do my notes say?")}})
	if err != nil {
		code := p.stop(t)
		t.Fatalf("session/prompt: %v\nagent exit %d, stderr:\n%s", err, code, p.stderr.String())
	}
	if resp.StopReason != acp.StopReasonEndTurn {
		t.Errorf("stopReason = %q, want %q", resp.StopReason, acp.StopReasonEndTurn)
	}
	updates := client.seen()
	if code := p.stop(t); code != 0 {
		t.Errorf("agent exit code = %d after stdin EOF, want 0; stderr:\n%s", code, p.stderr.String())
	}

	t.Run("client", func(t *testing.T) { checkRecordUpdates(t, updates) })
	t.Run("model requests", func(t *testing.T) { checkRecordRequests(t, srv.Requests()) })
	t.Run("session log", func(t *testing.T) {
		checkRecordLog(t, filepath.Join(sessions, string(sess.SessionId), sessionlog.FileName), string(sess.SessionId), cwd)
	})
}

// checkRecordUpdates: the client saw the thoughts, the tool call and its
// progress, and the answer, in this order.
func checkRecordUpdates(t *testing.T, got []seen) {
	t.Helper()
	want := []seen{
		{Kind: "agent_thought_chunk", Text: "The user wants the notes; "},
		{Kind: "agent_thought_chunk", Text: "read notes.txt."},
		{Kind: "tool_call", CallID: callID, Status: "pending"},
		{Kind: "tool_call_update", CallID: callID, Status: "in_progress"},
		{Kind: "tool_call_update", CallID: callID, Status: "completed"},
		{Kind: "agent_message_chunk", Text: "notes.txt says: "},
		{Kind: "agent_message_chunk", Text: "hello from the workspace"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("session updates (-want +got):\n%s", diff)
	}
}

// checkRecordRequests: two model calls; the second carries the assistant's
// tool call and the tool result with the file's text.
func checkRecordRequests(t *testing.T, reqs []replay.RecordedRequest) {
	t.Helper()
	if len(reqs) != 2 {
		t.Fatalf("the model server got %d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		if r.Path != "/chat/completions" || r.Header.Get("Authorization") != "Bearer dummy" {
			t.Errorf("request %d: %s %s, Authorization %q; want POST /chat/completions with Bearer dummy", i+1, r.Method, r.Path, r.Header.Get("Authorization"))
		}
	}
	var body struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatalf("request 2 body: %v\n%s", err, reqs[1].Body)
	}
	var call, result bool
	for _, m := range body.Messages {
		if m.Role == "assistant" && len(m.ToolCalls) == 1 && m.ToolCalls[0].ID == callID &&
			m.ToolCalls[0].Function.Name == "read_file" && m.ToolCalls[0].Function.Arguments == `{"path":"notes.txt"}` {
			call = true
		}
		if m.Role == "tool" && m.ToolCallID == callID && m.Content == any(notesText) {
			result = true
		}
	}
	if !call || !result {
		t.Errorf("request 2: assistant tool call found %v, tool result with the file text found %v; body:\n%s", call, result, reqs[1].Body)
	}
}

// checkRecordLog: the session log has the docs/format.md, "Session log" header, contiguous seq
// (sessionlog.ReadFile checks it), the events of the turn in order, and
// chunks that derive back to the script the model served.
func checkRecordLog(t *testing.T, path, id, cwd string) {
	t.Helper()
	l, err := sessionlog.ReadFile(path)
	if err != nil {
		t.Fatalf("read session log: %v", err)
	}
	wantHeader := sessionlog.Header{Type: "session", Version: 1, ID: id, CreatedAt: l.Header.CreatedAt, Cwd: cwd}
	if diff := cmp.Diff(wantHeader, l.Header); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	if l.Header.CreatedAt <= 0 {
		t.Errorf("header createdAt = %d, want a unix time in ms", l.Header.CreatedAt)
	}
	checkHeaderKeys(t, path)
	var types []string
	for i, e := range l.Events {
		if e.Seq != i {
			t.Errorf("%s:%d: seq %d, want %d", path, e.Line, e.Seq, i)
		}
		if n := len(types); e.Type == "assistant/chunk" && n > 0 && types[n-1] == "assistant/chunk…" {
			continue
		}
		if e.Type == "assistant/chunk" {
			types = append(types, "assistant/chunk…")
			continue
		}
		types = append(types, e.Type)
	}
	want := []string{
		"turn/start", "user/message",
		"step/start", "request/header", "assistant/chunk…", "assistant/message", "tool/call", "tool/result", "step/end",
		"step/start", "request/header", "assistant/chunk…", "assistant/message", "step/end",
		"turn/end",
	}
	if diff := cmp.Diff(want, types); diff != "" {
		t.Errorf("event types, runs of assistant/chunk folded (-want +got):\n%s", diff)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	script, err := replay.Derive(bytes.NewReader(b), path)
	if err != nil {
		t.Fatalf("derive the recorded log: %v", err)
	}
	if diff := cmp.Diff(recordScript, script); diff != "" {
		t.Errorf("script derived from the recorded log (-want +got):\n%s", diff)
	}
}

// checkHeaderKeys: line 1 has exactly the keys of a primary session's header.
func checkHeaderKeys(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(line, &raw); err != nil {
		t.Fatalf("%s:1: %v", path, err)
	}
	var keys []string
	for k := range raw {
		keys = append(keys, k)
	}
	want := []string{"createdAt", "cwd", "delegationDepth", "id", "type", "version"}
	sort.Strings(keys)
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("%s:1: header keys (-want +got):\n%s", path, diff)
	}
}

// TestAgentModes: the agent subcommand refuses to start without what its
// mode needs, saying why, and never reads stdin first.
func TestAgentModes(t *testing.T) {
	type testCase struct {
		name     string
		env      []string
		wantCode int // 0: any non-zero code
		wantErr  []string
	}
	missing := filepath.Join(t.TempDir(), "nowhere", "session.jsonl")
	tests := []testCase{
		{"replay without fixture", []string{"ACPSNAP_MODE=replay"}, 0, []string{"no ACPSNAP_FIXTURE"}},
		{"replay with missing fixture", []string{"ACPSNAP_MODE=replay", "ACPSNAP_FIXTURE=" + missing}, 0, []string{missing, "does not exist", "re-record"}},
		{"bogus mode", []string{"ACPSNAP_MODE=bogus"}, ExitUsage, []string{`ACPSNAP_MODE="bogus"`, "want replay, record or unset"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := startAgent(t, agentEnv(t, append(tc.env, "ACPSNAP_SESSIONS_DIR="+t.TempDir())...))
			// stdin stays open: the agent must fail on its own.
			select {
			case <-p.done:
			case <-time.After(agentGrace):
				t.Fatalf("agent still running after %v with a bad configuration", agentGrace)
			}
			code := p.stop(t)
			stderr := withoutCoverageWarning(p.stderr.String())
			if code == 0 || code == -1 || tc.wantCode != 0 && code != tc.wantCode {
				t.Errorf("exit code = %d, want %s; stderr:\n%s", code, wantCodeText(tc.wantCode), stderr)
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr does not say %q:\n%s", w, stderr)
				}
			}
			if !strings.HasPrefix(stderr, "acpsnap: agent: ") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
				t.Errorf("stderr is not one line starting %q:\n%s", "acpsnap: agent: ", stderr)
			}
		})
	}
}

// withoutCoverageWarning drops the line a subprocess built by `go test
// -cover` prints when GOCOVERDIR is unset: it is the toolchain's, not ours.
func withoutCoverageWarning(s string) string {
	return strings.ReplaceAll(s, "warning: GOCOVERDIR not set, no coverage data emitted\n", "")
}

func wantCodeText(code int) string {
	if code == 0 {
		return "a non-zero exit code"
	}
	return fmt.Sprint(code)
}
