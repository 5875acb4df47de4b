package mcpproxy

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acpsnap/acpsnap/internal/cassette/tool"
	"github.com/acpsnap/acpsnap/testagents/mcpecho"
)

// TestMain lets the test binary be the real MCP server: started as
// "<test binary> mcp-echo" it serves package mcpecho.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "mcp-echo" {
		if err := mcpecho.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// session runs the proxy with cfg and returns a client session to it and
// a function that disconnects and returns Run's error.
func session(t *testing.T, cfg Config) (*mcp.ClientSession, func() error) {
	t.Helper()
	toProxyR, toProxyW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := Run(context.Background(), cfg, toProxyR, toClientW)
		toClientW.Close()
		done <- err
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.IOTransport{Reader: toClientR, Writer: toProxyW}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs, func() error {
		cs.Close()
		return <-done
	}
}

// callText calls tool with args and returns its first text content, or the
// error's message.
func callText(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return "error: " + err.Error()
	}
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	if res.IsError {
		return "tool error: " + strings.Join(parts, "\n")
	}
	return strings.Join(parts, "\n")
}

type transcript struct {
	Server string
	Tools  []string
	Calls  []string
}

// exercise lists the tools and calls add then echo.
func exercise(t *testing.T, cs *mcp.ClientSession, a int) transcript {
	t.Helper()
	tr := transcript{Server: cs.InitializeResult().ServerInfo.Name}
	for tl, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		tr.Tools = append(tr.Tools, tl.Name)
	}
	tr.Calls = append(tr.Calls, callText(t, cs, "add", map[string]int{"a": a, "b": 2}), callText(t, cs, "echo", map[string]string{"text": "hi"}))
	return tr
}

func recordOnce(t *testing.T, dir string) (file, calls string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	file, calls = filepath.Join(dir, "mcp.echo.cassette.jsonl"), filepath.Join(dir, "calls")
	t.Setenv(mcpecho.CallsVar, calls)
	cs, stop := session(t, Config{Mode: tool.Record, File: file, Command: []string{exe, "mcp-echo"}, Report: filepath.Join(dir, "record.json")})
	got := exercise(t, cs, 40)
	if err := stop(); err != nil {
		t.Fatalf("record: %v", err)
	}
	want := transcript{Server: "mcpecho", Tools: []string{"add", "echo"}, Calls: []string{"40 + 2 = 42", "echo: hi"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("record (-want +got):\n%s", diff)
	}
	return file, calls
}

// TestRecordThenReplayWithoutServer: replay answers initialize, tools/list
// and tools/call from the cassette, and the real server runs only during
// record (its call log has the record's two lines).
func TestRecordThenReplayWithoutServer(t *testing.T) {
	dir := t.TempDir()
	file, calls := recordOnce(t, dir)
	reportPath := filepath.Join(dir, "replay.json")
	cs, stop := session(t, Config{Mode: tool.Replay, File: file, Command: []string{"/nonexistent/server"}, Report: reportPath})
	got := exercise(t, cs, 40)
	if err := stop(); err != nil {
		t.Fatalf("replay: %v", err)
	}
	want := transcript{Server: "mcpecho", Tools: []string{"add", "echo"}, Calls: []string{"40 + 2 = 42", "echo: hi"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("replay (-want +got):\n%s", diff)
	}
	b, _ := os.ReadFile(calls)
	if diff := cmp.Diff("add\necho\n", string(b)); diff != "" {
		t.Errorf("real executions (-want +got):\n%s", diff)
	}
	if r := readReport(t, reportPath); r.Error != "" {
		t.Errorf("replay report: %q, want no error", r.Error)
	}
}

// TestReplayMismatchReported: a changed argument fails the call with
// CASSETTE_MISMATCH, poisons the next one, and Run and the report say so.
func TestReplayMismatchReported(t *testing.T) {
	dir := t.TempDir()
	file, _ := recordOnce(t, dir)
	reportPath := filepath.Join(dir, "replay.json")
	cs, stop := session(t, Config{Mode: tool.Replay, File: file, Report: reportPath})
	got := exercise(t, cs, 41)
	err := stop()
	if len(got.Calls) != 2 || !strings.Contains(got.Calls[0], tool.Code) || !strings.Contains(got.Calls[1], "poisoned") {
		t.Errorf("calls = %q, want a mismatch, then a poisoned refusal", got.Calls)
	}
	if err == nil || !strings.Contains(err.Error(), tool.Code) {
		t.Errorf("Run = %v, want CASSETTE_MISMATCH", err)
	}
	if r := readReport(t, reportPath); !strings.Contains(r.Error, tool.Code) {
		t.Errorf("report = %q, want CASSETTE_MISMATCH", r.Error)
	}
}

func readReport(t *testing.T, path string) Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestPathsAcrossRuns: a tools/call whose arguments and result hold the
// run's cwd replays in a run with another cwd (the cassette stores
// {{cwd}}), and its result carries today's cwd. The command line the
// harness composes carries the folders to the proxy.
func TestPathsAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(mcpecho.CallsVar, filepath.Join(dir, "calls"))
	parse := func(mode tool.Mode, nonce string, command ...string) Config {
		root := "/tmp/acpsnap-" + nonce
		args := Args(Config{Mode: mode, File: filepath.Join(dir, "mcp.echo.cassette.jsonl"), Command: command,
			Cwd: root + "/workspace", Home: root + "/home", Root: root})
		cfg, err := ParseArgs(args[1:], io.Discard)
		if err != nil {
			t.Fatalf("ParseArgs(%q): %v", args, err)
		}
		return cfg
	}
	echo := func(cfg Config) string {
		cs, stop := session(t, cfg)
		got := callText(t, cs, "echo", map[string]string{"text": "cat " + cfg.Cwd + "/hello.txt"})
		if err := stop(); err != nil {
			t.Errorf("%s: %v", cfg.Mode, err)
		}
		return got
	}
	rec := parse(tool.Record, "a", exe, "mcp-echo")
	if diff := cmp.Diff("echo: cat /tmp/acpsnap-a/workspace/hello.txt", echo(rec)); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	if b, _ := os.ReadFile(rec.File); strings.Contains(string(b), "acpsnap-a") || !strings.Contains(string(b), "{{cwd}}/hello.txt") {
		t.Errorf("the cassette holds the run's cwd:\n%s", b)
	}
	if diff := cmp.Diff("echo: cat /tmp/acpsnap-b/workspace/hello.txt", echo(parse(tool.Replay, "b"))); diff != "" {
		t.Errorf("replay in another run (-want +got):\n%s", diff)
	}
}
