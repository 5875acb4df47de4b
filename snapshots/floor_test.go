package snapshots_test

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/scenario"
)

// BenchmarkAgentFloor is the reference agent's own floor, with no harness:
// agentCommand started with the environment a replay of the handshake
// scenario gives it (agentenv.Harness), then initialize and session/new
// driven over its stdio by the ACP SDK. The folders are made and the agent's
// exit waited for outside the timing. scripts/ratio divides the mean of
// BenchmarkScenario by it.
func BenchmarkAgentFloor(b *testing.B) {
	fixture, err := filepath.Abs(filepath.Join("handshake", scenario.SessionFile))
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		b.StopTimer()
		root := b.TempDir()
		h := agentenv.Harness{Home: filepath.Join(root, "home"), TmpDir: filepath.Join(root, "tmp"),
			SessionsDir: filepath.Join(root, "sessions"), Fixture: fixture}
		cwd := filepath.Join(root, "cwd")
		for _, d := range []string{h.Home, h.TmpDir, h.SessionsDir, cwd} {
			if err := os.Mkdir(d, 0o755); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		stop := handshake(b, h.Environ(), cwd)
		b.StopTimer()
		stop()
		b.StartTimer()
	}
}

// handshake starts the agent in cwd with env, initializes it and opens a
// session; stop closes its stdin and waits for it to exit.
func handshake(b *testing.B, env []string, cwd string) (stop func()) {
	var stderr bytes.Buffer // the SDK's log of the connection, shown on failure
	cmd := exec.Command(agentCommand[0], agentCommand[1:]...)
	cmd.Dir, cmd.Env, cmd.Stderr = cwd, env, &stderr
	cmd.WaitDelay = 5 * time.Second
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
	stop = func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil {
			b.Fatalf("the agent's exit: %v\n%s", err, stderr.Bytes())
		}
	}
	conn := acp.NewClientSideConnection(floorClient{}, stdin, stdout)
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := conn.Initialize(ctx, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber}); err != nil {
		stop()
		b.Fatalf("initialize: %v\n%s", err, stderr.Bytes())
	}
	if _, err := conn.NewSession(ctx, acp.NewSessionRequest{Cwd: cwd, McpServers: []acp.McpServer{}}); err != nil {
		stop()
		b.Fatalf("session/new: %v\n%s", err, stderr.Bytes())
	}
	return stop
}

// floorClient is the client side of the floor: it takes session updates and
// offers nothing else (the handshake asks for nothing else; the embedded
// nil Client would panic if it did).
type floorClient struct{ acp.Client }

func (floorClient) SessionUpdate(context.Context, acp.SessionNotification) error { return nil }
