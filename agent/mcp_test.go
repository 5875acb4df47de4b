package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	toolcassette "github.com/acpsnap/acpsnap/cassette/tool"
	"github.com/acpsnap/acpsnap/testagents/mcpecho"
)

// TestMain lets the test binary be an MCP server: started as "<test
// binary> mcp-echo" it serves package mcpecho on stdio.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "mcp-echo" {
		if err := mcpecho.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// echoServer is session/new's entry for this test binary as mcpecho.
func echoServer(t *testing.T) acp.McpServer {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return acp.McpServer{Stdio: &acp.McpServerStdio{Name: "echo", Command: exe, Args: []string{"mcp-echo"}, Env: []acp.EnvVariable{}}}
}

// mcpTurn runs one turn in a session with the echo server whose model
// calls add{40,2}, and returns the tool names the model was offered and
// the tool results it saw.
func mcpTurn(t *testing.T, mod func(*Config)) (offered, results []string) {
	t.Helper()
	sc := newScript(use(call("m1", "mcp__echo__add", map[string]int{"a": 40, "b": 2})), say("42"))
	r := newRig(t, sc.provider(), nil, mod)
	r.init(acp.ClientCapabilities{})
	resp, err := r.conn.NewSession(r.ctx(), acp.NewSessionRequest{Cwd: r.cwd, McpServers: []acp.McpServer{echoServer(t)}})
	if err != nil {
		t.Fatalf("session/new: %v", err)
	}
	r.mustPrompt(string(resp.SessionId), "add", acp.StopReasonEndTurn)
	if err := r.close(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	for _, tl := range sc.requests()[0].Tools {
		offered = append(offered, tl.Name)
	}
	return offered, toolMessages(sc.requests())
}

// TestMCPToolsOfferedAndCalled: a stdio server's tools follow the built-in
// ones as mcp__<server>__<tool>, and a call reaches the server.
func TestMCPToolsOfferedAndCalled(t *testing.T) {
	offered, results := mcpTurn(t, nil)
	want := []string{"read_file", "write_file", "edit_file", "list_dir", "bash", "fetch", "todo_write", "task", "mcp__echo__add", "mcp__echo__echo"}
	if diff := cmp.Diff(want, offered); diff != "" {
		t.Errorf("offered tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"m1: 40 + 2 = 42"}, results); diff != "" {
		t.Errorf("tool results (-want +got):\n%s", diff)
	}
}

// TestMCPCallsThroughTheCassette: a selected MCP tool is recorded, and in
// replay the server never executes the call (it is still started, for its
// tool list).
func TestMCPCallsThroughTheCassette(t *testing.T) {
	calls := filepath.Join(t.TempDir(), "calls")
	t.Setenv(mcpecho.CallsVar, calls)
	file := filepath.Join(t.TempDir(), "tools.cassette.jsonl")
	mod, rec := withCassette(t, toolcassette.Record, file, "mcp__*")
	_, recorded := mcpTurn(t, mod)
	if err := rec.Cassette.Close(); err != nil {
		t.Fatal(err)
	}
	mod, play := withCassette(t, toolcassette.Replay, file, "mcp__*")
	_, replayed := mcpTurn(t, mod)
	if err := play.Cassette.Close(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(recorded, replayed); diff != "" {
		t.Errorf("replay (-record +replay):\n%s", diff)
	}
	b, _ := os.ReadFile(calls)
	if diff := cmp.Diff("add\n", string(b)); diff != "" {
		t.Errorf("real executions (-want +got):\n%s", diff)
	}
}
