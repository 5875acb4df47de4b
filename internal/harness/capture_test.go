package harness_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/internal/harness"
	scn "github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/testagents/fakeagent"
)

// captureClient is the client end of a capture: the pipes harness.Capture
// reads and writes, and every line it wrote, as the client got it.
type captureClient struct {
	toAgent *io.PipeWriter // what the client sends
	in      *io.PipeReader // capture's Client
	fromCap *io.PipeReader // what the client reads
	out     *io.PipeWriter // capture's ToClient
	mu      sync.Mutex
	lines   [][]byte
}

func newCaptureClient() *captureClient {
	c := &captureClient{}
	c.in, c.toAgent = io.Pipe()
	c.fromCap, c.out = io.Pipe()
	return c
}

// reader is what the client reads, each line kept.
func (c *captureClient) reader() io.Reader {
	pr, pw := io.Pipe()
	go func() {
		s := bufio.NewScanner(c.fromCap)
		s.Buffer(nil, 1<<20)
		for s.Scan() {
			c.mu.Lock()
			c.lines = append(c.lines, append([]byte(nil), s.Bytes()...))
			c.mu.Unlock()
			pw.Write(append(s.Bytes(), '\n'))
		}
		pw.Close()
	}()
	return pr
}

// capture runs harness.Capture of the fake agent with the script in dir's
// manifest, in a fresh folder, the client driven by drive.
func capture(t *testing.T, sc scenario, drive func(c *captureClient, conn *acp.ClientSideConnection, cwd string)) (*harness.Captured, error, *captureClient) {
	t.Helper()
	dir := sc.write(t)
	exe, _ := os.Executable()
	tmp, cwd := t.TempDir(), t.TempDir()
	c := newCaptureClient()
	cfg := harness.CaptureConfig{Config: harness.Config{Settings: harness.Settings{Agent: []string{exe, "-test.run=^$"}, Grace: 300 * time.Millisecond, TempDir: tmp,
		Environ: []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}}, Dir: dir, Scenario: scn.Load(dir)},
		Cwd: cwd, Client: c.in, ToClient: c.out}
	type result struct {
		got *harness.Captured
		err error
	}
	done := make(chan result, 1)
	go func() {
		got, err := harness.Capture(context.Background(), cfg)
		c.out.Close()
		done <- result{got, err}
	}()
	conn := acp.NewClientSideConnection(&liveClient{}, c.toAgent, c.reader())
	conn.SetLogger(slog.New(slog.DiscardHandler))
	drive(c, conn, cwd)
	c.toAgent.Close() // the client disconnects
	r := <-done
	assertNoLeftovers(t, tmp)
	return r.got, r.err, c
}

// liveClient answers nothing the fake agent asks in these tests.
type liveClient struct{ acp.Client }

func (liveClient) SessionUpdate(context.Context, acp.SessionNotification) error { return nil }

// TestCaptureRelaysLive: the client gets each line as the agent writes it
// (the agent waits for a cancel that the client sends only once it has
// read the line before), byte for byte, and nothing of the agent's stderr.
func TestCaptureRelaysLive(t *testing.T) {
	sc := scenario{name: "live", script: fakeagent.Script{Prompts: [][]fakeagent.Action{{
		{TurnStart: true},
		{Update: json.RawMessage(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"first"}}`)},
		{Stderr: `{"jsonrpc":"2.0","method":"session/update","params":"from stderr"}`},
		{WaitCancel: true},
		{TurnEnd: "aborted"},
	}}}}
	var stop acp.StopReason
	got, err, c := capture(t, sc, func(c *captureClient, conn *acp.ClientSideConnection, cwd string) {
		ctx := context.Background()
		conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
		s, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		answered := make(chan acp.StopReason, 1)
		go func() {
			r, _ := conn.Prompt(ctx, acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("Go.")}})
			answered <- r.StopReason
		}()
		for deadline := time.Now().Add(30 * time.Second); !c.saw("first"); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the agent's first update never reached the client")
			}
		}
		conn.Cancel(ctx, acp.CancelNotification{SessionId: s.SessionId})
		stop = <-answered
	})
	if stop != acp.StopReasonCancelled {
		t.Errorf("the prompt ended %q, want cancelled", stop)
	}
	// A native agent's cancel cannot be replayed at its point: refused.
	if err == nil || !strings.Contains(err.Error(), "the client cancelled a prompt of a native agent") {
		t.Errorf("err = %v", err)
	}
	if got == nil || got.Result == nil {
		t.Fatal("no result")
	}
	if len(c.lines) != len(got.Result.Stdout) {
		t.Fatalf("the client got %d lines, the agent wrote %d", len(c.lines), len(got.Result.Stdout))
	}
	for i := range c.lines {
		if !bytes.Equal(c.lines[i], got.Result.Stdout[i]) {
			t.Errorf("line %d: the client got %q, the agent wrote %q", i+1, c.lines[i], got.Result.Stdout[i])
		}
		if bytes.Contains(c.lines[i], []byte("from stderr")) {
			t.Errorf("line %d carries the agent's stderr: %q", i+1, c.lines[i])
		}
	}
	if !strings.Contains(got.Result.Stderr, "from stderr") {
		t.Errorf("the agent's stderr was not kept: %q", got.Result.Stderr)
	}
}

func (c *captureClient) saw(text string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, l := range c.lines {
		if bytes.Contains(l, []byte(text)) {
			return true
		}
	}
	return false
}

// TestCaptureNative: a native agent's session becomes its input.json and
// its own session log.
func TestCaptureNative(t *testing.T) {
	got, err, _ := capture(t, scenario{name: "native"}, func(_ *captureClient, conn *acp.ClientSideConnection, cwd string) {
		ctx := context.Background()
		conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
		s, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Prompt(ctx, acp.PromptRequest{SessionId: s.SessionId, Prompt: []acp.ContentBlock{acp.TextBlock("Hi.")}}); err != nil {
			t.Fatal(err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(got.Input, []byte(`"text": "Hi."`)) {
		t.Errorf("input.json:\n%s", got.Input)
	}
	if len(got.Result.Logs) != 1 || !bytes.Contains(got.Result.Logs[0].Raw, []byte("turn/start")) {
		t.Errorf("logs: %d", len(got.Result.Logs))
	}
}

// TestCaptureBadLine: a line of the agent's that is not JSON reaches the
// client as the agent wrote it, and the session cannot be a scenario.
func TestCaptureBadLine(t *testing.T) {
	sc := scenario{name: "bad", script: fakeagent.Script{Initialize: []fakeagent.Action{{Stdout: "hello, not JSON"}}}}
	_, err, c := capture(t, sc, func(_ *captureClient, conn *acp.ClientSideConnection, _ string) {
		conn.Initialize(context.Background(), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	})
	if err == nil || !strings.Contains(err.Error(), "is not JSON (stdout is protocol only)") {
		t.Errorf("err = %v", err)
	}
	if len(c.lines) == 0 || string(c.lines[0]) != "hello, not JSON" {
		t.Errorf("the client got %q", c.lines)
	}
}
