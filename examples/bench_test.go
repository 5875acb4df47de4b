package examples_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// The codex-acp benchmarks compare one scenario (codex-acp/text-turn)
// replayed by acpsnap — proxy, normalization, composed log, comparison —
// with the same agent driven straight against an in-process scripted
// server in the openai-responses dialect (no proxy, no normalization), in
// one run; and give the floor: start, initialize and session/new, driven
// straight. They need codex-acp installed and a loopback-only network
// (the agent must never reach the internet):
//
//	eval "$(scripts/install-agents)"
//	unshare -n sh -c 'ip link set lo up && go test -run XXX -bench Codex -benchtime 10x ./examples'

const codexScenario = "codex-acp/text-turn"

// codexBench skips b unless codex-acp is installed and the network is
// loopback only; it returns the corpus and the agent's PATH.
func codexBench(b *testing.B) (*scenario.Corpus, string) {
	b.Helper()
	path := agentPath(b)
	if !lookPath("codex-acp", path) {
		b.Skipf("codex-acp is not installed (%s)", installHint)
	}
	ifs, err := net.Interfaces()
	if err != nil {
		b.Fatal(err)
	}
	for _, i := range ifs {
		if i.Flags&net.FlagLoopback == 0 {
			b.Skipf("network interface %s is not loopback: run the codex benchmarks offline, e.g. unshare -n sh -c 'ip link set lo up && go test -bench Codex ./examples'", i.Name)
		}
	}
	c, err := scenario.LoadCorpus("codex-acp")
	if err != nil {
		b.Fatal(err)
	}
	b.Setenv("PATH", path) // where the harness and exec look the agent up
	return c, path
}

// withPath is the environment with PATH replaced.
func withPath(path string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return append(env, "PATH="+path)
}

// BenchmarkCodexACP/acpsnap replays the scenario as `acpsnap run` does
// (check.Check in replay mode: the harness, the proxy, the composed log,
// the comparison); BenchmarkCodexACP/direct drives the same agent through
// the same steps against replay.Server: initialize, session/new, wait
// for available_commands_update (codex-acp sends it on a timer), the
// prompt and its answer.
func BenchmarkCodexACP(b *testing.B) {
	corpus, path := codexBench(b)
	b.Run("acpsnap", func(b *testing.B) {
		cfg := check.Config{Settings: harness.Settings{Agent: corpus.Agent.Command, Environ: withPath(path)}, Corpus: corpus}
		for b.Loop() {
			if o := check.Check(context.Background(), codexScenario, cfg); o.Status != check.Passed {
				b.Fatalf("%s: %s %v\n%s", codexScenario, o.Status, o.Err, o.Diff)
			}
		}
	})
	b.Run("direct", func(b *testing.B) {
		script, err := check.LoadModel(codexScenario)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			script.Dialect = "openai-responses"
			directTurn(b, corpus, path, script, true)
		}
	})
}

// BenchmarkCodexRatio alternates the two in one loop, so that a shared
// machine's load drifts over both alike, and reports each one's mean and
// their ratio (acpsnap/direct; the target is under 1.15).
func BenchmarkCodexRatio(b *testing.B) {
	corpus, path := codexBench(b)
	cfg := check.Config{Settings: harness.Settings{Agent: corpus.Agent.Command, Environ: withPath(path)}, Corpus: corpus}
	script, err := check.LoadModel(codexScenario)
	if err != nil {
		b.Fatal(err)
	}
	script.Dialect = "openai-responses"
	var viaAcpsnap, direct time.Duration
	for b.Loop() {
		t := time.Now()
		if o := check.Check(context.Background(), codexScenario, cfg); o.Status != check.Passed {
			b.Fatalf("%s: %s %v\n%s", codexScenario, o.Status, o.Err, o.Diff)
		}
		viaAcpsnap += time.Since(t)
		t = time.Now()
		directTurn(b, corpus, path, script, true)
		direct += time.Since(t)
	}
	b.ReportMetric(float64(viaAcpsnap.Milliseconds())/float64(b.N), "acpsnap-ms/op")
	b.ReportMetric(float64(direct.Milliseconds())/float64(b.N), "direct-ms/op")
	b.ReportMetric(float64(viaAcpsnap)/float64(direct), "ratio")
}

// BenchmarkCodexFloor is the floor of every codex-acp scenario: start the
// agent, initialize, session/new, stop it; driven straight.
func BenchmarkCodexFloor(b *testing.B) {
	corpus, path := codexBench(b)
	for b.Loop() {
		directTurn(b, corpus, path, replay.ServerConfig{Dialect: "openai-responses"}, false)
	}
}

// directTurn starts codex-acp as the corpus says, against a scripted
// server serving model, in fresh private folders; it initializes, opens a
// session and, with prompt, waits for available_commands_update, sends the
// scenario's prompt and waits for its answer; then it stops the agent's
// process group (codex-acp's node launcher does not stop its native
// binary) and waits for it.
func directTurn(b *testing.B, corpus *scenario.Corpus, path string, model replay.ServerConfig, prompt bool) {
	b.Helper()
	srv, err := replay.NewServer(model)
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	root := b.TempDir()
	home, cwd := filepath.Join(root, "home"), filepath.Join(root, "cwd")
	for _, d := range []string{filepath.Join(home, ".codex"), cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(home, ".codex", "installation_id"), []byte("00000000-0000-4000-8000-000000000000"), 0o644); err != nil {
		b.Fatal(err)
	}
	var argv []string
	for _, a := range corpus.Agent.Command {
		argv = append(argv, strings.ReplaceAll(a, "{{model.url}}", srv.URL()))
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = cwd
	cmd.Env = []string{"PATH=" + path, "HOME=" + home, "CODEX_HOME=" + filepath.Join(home, ".codex"), "TZ=UTC", "TMPDIR=" + root}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		stdin.Close()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		cmd.Wait()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}()
	c := &acpClient{b: b, in: stdin, out: bufio.NewReaderSize(stdout, 1<<20)}
	c.call(1, "initialize", `{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false,"writeTextFile":false},"terminal":false}}`)
	res := c.call(2, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, cwd))
	if !prompt {
		return
	}
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(res, &s); err != nil {
		b.Fatal(err)
	}
	for !c.commands { // the scenario's waitForUpdate
		c.line()
	}
	c.call(3, "session/prompt", fmt.Sprintf(`{"sessionId":%q,"prompt":[{"type":"text","text":"Say hello."}]}`, s.SessionID))
}

// acpClient is the least ACP client: it writes requests and reads lines.
type acpClient struct {
	b        *testing.B
	in       io.Writer
	out      *bufio.Reader
	commands bool // available_commands_update seen
}

// call sends a request and returns its result, reading what comes first.
func (c *acpClient) call(id int, method, params string) json.RawMessage {
	fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
	for {
		m := c.line()
		if m.ID != nil && *m.ID == id && m.Method == "" {
			if m.Error != nil {
				c.b.Fatalf("%s: %s", method, m.Error)
			}
			return m.Result
		}
	}
}

type acpMessage struct {
	ID     *int            `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  json.RawMessage `json:"error"`
	Params struct {
		Update struct {
			SessionUpdate string `json:"sessionUpdate"`
		} `json:"update"`
	} `json:"params"`
}

// line reads one message from the agent, within 30 s.
func (c *acpClient) line() acpMessage {
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		b, err := c.out.ReadBytes('\n')
		done <- read{b, err}
	}()
	var r read
	select {
	case r = <-done:
	case <-time.After(30 * time.Second):
		c.b.Fatal("codex-acp: no line within 30s")
	}
	if r.err != nil {
		c.b.Fatalf("codex-acp stdout: %v", r.err)
	}
	var m acpMessage
	if err := json.Unmarshal(r.b, &m); err != nil {
		c.b.Fatalf("codex-acp stdout: %v: %s", err, r.b)
	}
	if m.Params.Update.SessionUpdate == "available_commands_update" {
		c.commands = true
	}
	return m
}
