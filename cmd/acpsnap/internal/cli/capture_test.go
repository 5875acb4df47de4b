package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// captureKey is the live model's key in the capture tests: no file of the
// corpus, no line the client gets and nothing the agent sees may hold it.
const captureKey = "sk-capture-test-0123456789abcdef"

// captureCorpus is an HTTP corpus whose agent is the reference agent run
// as a third-party agent (this test binary's "agent"): its model is
// OpenAI chat completions at the proxy's URL.
func captureCorpus(t *testing.T) (corpus, proj string) {
	t.Helper()
	root := t.TempDir()
	corpus, proj = filepath.Join(root, "corpus"), filepath.Join(root, "proj")
	for _, d := range []string{corpus, proj} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	yml := fmt.Sprintf(`version: 1
agent:
  command: [%q, agent]
  env: { DEEPSEEK_BASE_URL: "{{model.url}}", DEEPSEEK_API_KEY: "{{model.key}}" }
model:
  dialect: openai-chat
scrub:
  - { pattern: 'chatcmpl-[0-9]+', replace: 'chatcmpl-N' }
`, exe)
	writeFile(t, filepath.Join(corpus, scenario.CorpusFile), yml)
	writeFile(t, filepath.Join(proj, "notes.txt"), "buy milk\n")
	return corpus, proj
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// upstream serves the model file of entries on 127.0.0.1 in openai-chat:
// the stand-in for the live model.
func upstream(t *testing.T, entries string, readyDir string) *replay.Server {
	t.Helper()
	cfg, err := replay.DecodeModel(strings.NewReader(entries), "model.json")
	if err != nil {
		t.Fatal(err)
	}
	cfg.ReadyDir = readyDir
	srv, err := replay.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// captureRun is one `acpsnap capture` process and the scripted client
// that drives it over its stdin and stdout.
type captureRun struct {
	cmd    *exec.Cmd
	conn   *acp.ClientSideConnection
	client *scriptedClient
	stdin  io.WriteCloser
	stderr bytes.Buffer
	lines  *lineTap
	tmp    string // capture's TMPDIR
}

// httpModel is the environment that points an HTTP corpus's capture at
// the upstream url, with the key.
func httpModel(url string) []string {
	return []string{"OPENAI_BASE_URL=" + url, "OPENAI_API_KEY=" + captureKey}
}

// startCapture starts `acpsnap capture -dir corpus ARGS…` in proj with the
// live model's variables model in its environment, and connects a client.
func startCapture(t *testing.T, corpus, proj string, model []string, args ...string) *captureRun {
	t.Helper()
	exe, _ := os.Executable()
	cmd := exec.Command(exe, append([]string{"capture", "-dir", corpus}, args...)...)
	cmd.Dir = proj
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CI=") && !strings.HasPrefix(kv, "OPENAI_") && !strings.HasPrefix(kv, "DEEPSEEK_") && !strings.HasPrefix(kv, "GORACE=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	tmp := t.TempDir()
	// GORACE: a race-enabled process would sleep a second at exit.
	cmd.Env = append(append(cmd.Env, model...), "TMPDIR="+tmp, "GORACE=atexit_sleep_ms=0")
	c := &captureRun{cmd: cmd, client: &scriptedClient{cwd: proj, allow: "allow_once"}, tmp: tmp}
	cmd.Stderr = &c.stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	c.stdin, c.lines = stdin, &lineTap{r: stdout}
	c.conn = acp.NewClientSideConnection(c.client, stdin, c.lines)
	c.conn.SetLogger(slog.New(slog.DiscardHandler))
	return c
}

// end disconnects the client and waits for capture to write the scenario;
// it returns capture's exit code.
func (c *captureRun) end(t *testing.T) int {
	t.Helper()
	c.stdin.Close()
	done := make(chan error, 1)
	go func() { done <- c.cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(2 * time.Minute):
		c.cmd.Process.Kill()
		t.Fatalf("capture did not end within 2 minutes of the client leaving; stderr:\n%s", c.stderr.String())
	}
	return -1
}

// lineTap is capture's stdout as the client reads it, each line kept.
type lineTap struct {
	r    io.Reader
	mu   sync.Mutex
	buf  []byte
	seen [][]byte
}

func (l *lineTap) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.mu.Lock()
	l.buf = append(l.buf, p[:n]...)
	for {
		i := bytes.IndexByte(l.buf, '\n')
		if i < 0 {
			break
		}
		l.seen = append(l.seen, append([]byte(nil), l.buf[:i]...))
		l.buf = l.buf[i+1:]
	}
	l.mu.Unlock()
	return n, err
}

// scriptedClient is the test's ACP client: it answers permission requests
// with the option of kind allow, serves fs in its folder, and keeps the
// text the agent showed.
type scriptedClient struct {
	cwd, allow string
	unsaved    string // served for every read instead of the file's content, as an editor serves an unsaved buffer; "": none
	mu         sync.Mutex
	text       strings.Builder
	reads      int
}

func (c *scriptedClient) shown() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.text.String()
}

func (c *scriptedClient) SessionUpdate(_ context.Context, n acp.SessionNotification) error {
	if u := n.Update.AgentMessageChunk; u != nil && u.Content.Text != nil {
		c.mu.Lock()
		c.text.WriteString(u.Content.Text.Text)
		c.mu.Unlock()
	}
	return nil
}

func (c *scriptedClient) RequestPermission(_ context.Context, p acp.RequestPermissionRequest) (acp.RequestPermissionResponse, error) {
	for _, o := range p.Options {
		if string(o.Kind) == c.allow {
			return acp.RequestPermissionResponse{Outcome: acp.RequestPermissionOutcome{Selected: &acp.RequestPermissionOutcomeSelected{OptionId: o.OptionId}}}, nil
		}
	}
	return acp.RequestPermissionResponse{}, fmt.Errorf("no option of kind %s", c.allow)
}

func (c *scriptedClient) ReadTextFile(_ context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
	b, err := os.ReadFile(p.Path)
	if err != nil {
		return acp.ReadTextFileResponse{}, err
	}
	if c.unsaved != "" {
		b = []byte(c.unsaved)
	}
	c.mu.Lock()
	c.reads++
	c.mu.Unlock()
	return acp.ReadTextFileResponse{Content: string(b)}, nil
}

func (c *scriptedClient) WriteTextFile(_ context.Context, p acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
	return acp.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}

func (c *scriptedClient) CreateTerminal(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
	return acp.CreateTerminalResponse{}, errors.New("no terminal")
}
func (c *scriptedClient) KillTerminal(context.Context, acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
	return acp.KillTerminalResponse{}, errors.New("no terminal")
}
func (c *scriptedClient) TerminalOutput(context.Context, acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
	return acp.TerminalOutputResponse{}, errors.New("no terminal")
}
func (c *scriptedClient) ReleaseTerminal(context.Context, acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
	return acp.ReleaseTerminalResponse{}, errors.New("no terminal")
}
func (c *scriptedClient) WaitForTerminalExit(context.Context, acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
	return acp.WaitForTerminalExitResponse{}, errors.New("no terminal")
}

// Entries of the stand-in model.
const (
	writeDone = `{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"tool-call"},
	  {"type":"tool-call-delta","index":0,"id":"call_w","name":"write_file","argumentsDelta":"{\"path\":\"done.txt\",\"content\":\"ok\\n\"}"},
	  {"type":"block-end","index":0},{"type":"finish","reason":"tool-calls"}]}`
	readNotes = `{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"tool-call"},
	  {"type":"tool-call-delta","index":0,"id":"call_r","name":"read_file","argumentsDelta":"{\"path\":\"notes.txt\"}"},
	  {"type":"block-end","index":0},{"type":"finish","reason":"tool-calls"}]}`
)

// say is an entry that answers text.
func say(text string) string {
	return `{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"text"},{"type":"text-delta","index":0,"text":` +
		fmt.Sprintf("%q", text) + `},{"type":"block-end","index":0},{"type":"finish","reason":"stop"}]}`
}

func (c *captureRun) initialize(t *testing.T) acp.SessionId {
	t.Helper()
	ctx := context.Background()
	if _, err := c.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber,
		ClientCapabilities: acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}},
		ClientInfo:         &acp.Implementation{Name: "scripted", Version: "1"}}); err != nil {
		t.Fatalf("initialize: %v\n%s", err, c.stderr.String())
	}
	s, err := c.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: c.client.cwd, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v\n%s", err, c.stderr.String())
	}
	return s.SessionId
}

func (c *captureRun) prompt(t *testing.T, id acp.SessionId, text string) acp.StopReason {
	t.Helper()
	r, err := c.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock(text)}})
	if err != nil {
		t.Fatalf("session/prompt %q: %v\n%s", text, err, c.stderr.String())
	}
	return r.StopReason
}

// TestCaptureScriptedClient drives capture with a scripted ACP client: a
// mode change, a write the client permits and serves through its fs, a
// read it serves, a prompt cancelled while the model streams, and one
// more answer. The client gets the live answers as they come; the scenario
// holds what it did, replays offline, and no file holds the key.
func TestCaptureScriptedClient(t *testing.T) {
	corpus, proj := captureCorpus(t)
	ready := t.TempDir()
	srv := upstream(t, "["+strings.Join([]string{writeDone, say("Wrote done.txt."), readNotes, say("The notes say: buy milk."),
		`{"kind":"hang","readyFile":"streaming"}`, say("Bye.")}, ",")+"]", ready)
	c := startCapture(t, corpus, proj, httpModel(srv.URL()), "-expect-workspace", "session-walk")
	id := c.initialize(t)
	if _, err := c.conn.SetSessionMode(context.Background(), acp.SetSessionModeRequest{SessionId: id, ModeId: "ask"}); err != nil {
		t.Fatalf("set_mode: %v", err)
	}
	for _, p := range []string{"Write done.txt saying ok.", "What do the notes say?"} {
		if got := c.prompt(t, id, p); got != acp.StopReasonEndTurn {
			t.Fatalf("%q: stop reason %s", p, got)
		}
	}
	cancelled := make(chan acp.StopReason, 1)
	go func() { cancelled <- c.prompt(t, id, "Tell me a long story.") }()
	waitFor(t, filepath.Join(ready, "streaming"))
	c.conn.Cancel(context.Background(), acp.CancelNotification{SessionId: id})
	if got := <-cancelled; got != acp.StopReasonCancelled {
		t.Fatalf("cancelled prompt: stop reason %s", got)
	}
	c.prompt(t, id, "Say bye.")
	if code := c.end(t); code != 0 {
		t.Fatalf("capture exited %d:\n%s", code, c.stderr.String())
	}
	if want, got := "Wrote done.txt.The notes say: buy milk.Bye.", c.client.shown(); got != want {
		t.Errorf("the client saw %q, want the model's answers %q", got, want)
	}
	sdir := filepath.Join(corpus, "session-walk")
	var in scenario.Input
	readJSON(t, filepath.Join(sdir, scenario.InputFile), &in)
	var ops []string
	for _, s := range in.Steps {
		ops = append(ops, s.Op+" "+s.Text+s.ModeID)
	}
	want := []string{"initialize ", "newSession ", "setMode ask", "prompt Write done.txt saying ok.", "prompt What do the notes say?",
		"promptAndCancel Tell me a long story.", "prompt Say bye."}
	if d := cmp.Diff(want, ops); d != "" {
		t.Errorf("input.json steps (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]scenario.PermissionAnswer{{Kind: "allow_once"}}, in.PermissionAnswers); d != "" {
		t.Errorf("permissionAnswers (-want +got):\n%s", d)
	}
	override, err := os.ReadFile(filepath.Join(sdir, scenario.OverrideFile))
	if err != nil || !strings.Contains(string(override), `"hangAfter": 1`) {
		t.Errorf("replay.override.json: %v\n%s", err, override)
	}
	for _, f := range []string{"workspace/notes.txt", "workspace.expected/done.txt"} {
		if _, err := os.Stat(filepath.Join(sdir, f)); err != nil {
			t.Errorf("the scenario has no %s: %v", f, err)
		}
	}
	assertReplays(t, corpus)
	assertNoKey(t, corpus, c.lines.seen)
}

// TestCaptureDisconnectMidPrompt: a client that goes away while a prompt
// runs gets no scenario, and capture says why.
func TestCaptureDisconnectMidPrompt(t *testing.T) {
	corpus, proj := captureCorpus(t)
	ready := t.TempDir()
	srv := upstream(t, `[{"kind":"hang","readyFile":"streaming"}]`, ready)
	c := startCapture(t, corpus, proj, httpModel(srv.URL()), "gone")
	id := c.initialize(t)
	go c.conn.Prompt(context.Background(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock("Go on forever.")}})
	waitFor(t, filepath.Join(ready, "streaming"))
	if code := c.end(t); code != ExitFailed {
		t.Fatalf("capture exited %d, want %d:\n%s", code, ExitFailed, c.stderr.String())
	}
	if !strings.Contains(c.stderr.String(), "the client disconnected while its session/prompt was still unanswered") {
		t.Errorf("stderr does not say why:\n%s", c.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(corpus, "gone")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused capture left %s: %v", filepath.Join(corpus, "gone"), err)
	}
}

// TestCaptureOtherFolder: a session for a folder other than the one
// capture started in is refused to the client, with the reason.
func TestCaptureOtherFolder(t *testing.T) {
	corpus, proj := captureCorpus(t)
	srv := upstream(t, "["+say("Hi.")+"]", "")
	c := startCapture(t, corpus, proj, httpModel(srv.URL()), "elsewhere")
	if _, err := c.conn.Initialize(context.Background(), acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	_, err := c.conn.NewSession(context.Background(), acp.NewSessionRequest{Cwd: t.TempDir(), McpServers: []acp.McpServer{}})
	if err == nil || !strings.Contains(err.Error(), "this capture records the folder it was started in") {
		t.Errorf("session/new in another folder: %v", err)
	}
	c.end(t)
}

// assertReplays runs the corpus offline, as a user would after capturing.
func assertReplays(t *testing.T, corpus string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string {
		if k == "CI" {
			return ""
		}
		return os.Getenv(k)
	}, environ: os.Environ()}
	if code := e.main([]string{"run", "-dir", corpus}); code != ExitOK {
		t.Fatalf("acpsnap run -dir %s: exit %d\n%s%s", corpus, code, out.String(), errb.String())
	}
}

// assertNoKey fails when a file of the corpus, or a line the client got,
// holds the key.
func assertNoKey(t *testing.T, corpus string, lines [][]byte) {
	t.Helper()
	filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if b, _ := os.ReadFile(p); bytes.Contains(b, []byte(captureKey)) {
				t.Errorf("%s holds the key", p)
			}
		}
		return nil
	})
	for i, l := range lines {
		if bytes.Contains(l, []byte(captureKey)) {
			t.Errorf("line %d the client got holds the key", i+1)
		}
		if !json.Valid(l) {
			t.Errorf("line %d the client got is not JSON: %q", i+1, l)
		}
	}
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// waitFor waits (bounded) for the file path to exist.
func waitFor(t *testing.T, path string) {
	t.Helper()
	if !appears(path) {
		t.Fatalf("%s never appeared", path)
	}
}

// appears waits, a minute at most, for the file path to exist.
func appears(path string) bool {
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return true
		}
	}
	return false
}

// TestCaptureClientKills: a client that stops its agent server by killing
// the process it started (as Zed does) still gets its session written:
// the capture's worker sees the client's stream end and writes it.
func TestCaptureClientKills(t *testing.T) {
	corpus, proj := captureCorpus(t)
	srv := upstream(t, "["+say("Hi.")+"]", "")
	c := startCapture(t, corpus, proj, httpModel(srv.URL()), "killed")
	id := c.initialize(t)
	c.prompt(t, id, "Say hi.")
	c.cmd.Process.Kill()
	c.stdin.Close() // a client that kills its agent server closes its pipes
	c.cmd.Wait()
	waitFor(t, filepath.Join(corpus, "killed", scenario.StdoutFile))
	assertReplays(t, corpus)
	// The worker ends once it has written: its temporary folders go.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(5 * time.Millisecond) {
		if entries, _ := os.ReadDir(c.tmp); len(entries) == 0 {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("the worker left %d entries in its TMPDIR", len(entries))
		}
	}
}

// TestCaptureOffline: with -offline the agent runs in a loopback-only
// network namespace, and the proxy still reaches the live model (a server
// on this machine's 127.0.0.1, outside the namespace) through the tunnel
// of the acpsnap process outside it.
func TestCaptureOffline(t *testing.T) {
	corpus, proj := captureCorpus(t)
	srv := upstream(t, "["+say("Hello from outside.")+"]", "")
	c := startCapture(t, corpus, proj, httpModel(srv.URL()), "-offline", "offline-turn")
	ctx := context.Background()
	_, err := c.conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber})
	if err != nil && strings.Contains(c.stderr.String(), "cannot create a network namespace") {
		t.Skipf("no network namespace on this machine: %s", c.stderr.String())
	}
	if err != nil {
		t.Fatalf("initialize: %v\n%s", err, c.stderr.String())
	}
	s, err := c.conn.NewSession(ctx, acp.NewSessionRequest{Cwd: proj, McpServers: []acp.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	c.prompt(t, s.SessionId, "Say hello.")
	if code := c.end(t); code != 0 {
		t.Fatalf("capture -offline exited %d:\n%s", code, c.stderr.String())
	}
	if got := c.client.shown(); got != "Hello from outside." {
		t.Errorf("the client saw %q", got)
	}
	if !strings.Contains(c.stderr.String(), "acpsnap: offline: no outbound attempts") {
		t.Errorf("no offline report:\n%s", c.stderr.String())
	}
	assertReplays(t, corpus)
	assertNoKey(t, corpus, c.lines.seen)
}

// TestCaptureNativeAgent: a native agent (a corpus without acpsnap.yml:
// the reference agent) records as record does, with the live model's
// variables, and its own log is the scenario's.
func TestCaptureNativeAgent(t *testing.T) {
	_, proj := captureCorpus(t)
	corpus := filepath.Join(filepath.Dir(proj), "native")
	if err := os.Mkdir(corpus, 0o755); err != nil {
		t.Fatal(err)
	}
	srv := upstream(t, "["+readNotes+","+say("It says: buy milk.")+"]", "")
	c := startCapture(t, corpus, proj, []string{"DEEPSEEK_BASE_URL=" + srv.URL(), "DEEPSEEK_API_KEY=" + captureKey}, "read-notes")
	id := c.initialize(t)
	c.prompt(t, id, "What do the notes say?")
	if code := c.end(t); code != 0 {
		t.Fatalf("capture exited %d:\n%s", code, c.stderr.String())
	}
	if got := c.client.shown(); got != "It says: buy milk." {
		t.Errorf("the client saw %q", got)
	}
	log, err := os.ReadFile(filepath.Join(corpus, "read-notes", scenario.SessionFile))
	if err != nil || !bytes.Contains(log, []byte(`"type":"request/header"`)) {
		t.Errorf("session.jsonl is not the native agent's log: %v\n%s", err, log)
	}
	assertReplays(t, corpus)
	assertNoKey(t, corpus, c.lines.seen)
}

// TestCaptureUnsavedBuffer: a client that serves a read from an unsaved
// buffer (not the file on disk) had a session a replay cannot repeat: the
// replay asks the model something else, and capture refuses, showing it.
func TestCaptureUnsavedBuffer(t *testing.T) {
	corpus, proj := captureCorpus(t)
	srv := upstream(t, "["+readNotes+","+say("It says: call mum.")+"]", "")
	c := startCapture(t, corpus, proj, httpModel(srv.URL()), "unsaved")
	c.client.unsaved = "call mum\n"
	id := c.initialize(t)
	c.prompt(t, id, "What do the notes say?")
	if code := c.end(t); code != ExitFailed {
		t.Fatalf("capture exited %d, want %d:\n%s", code, ExitFailed, c.stderr.String())
	}
	for _, want := range []string{"the session does not replay from input.json, so nothing was written", "request drift", "call mum"} {
		if !strings.Contains(c.stderr.String(), want) {
			t.Errorf("stderr does not say %q:\n%s", want, c.stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(corpus, "unsaved")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a refused capture left its folder: %v", err)
	}
}
