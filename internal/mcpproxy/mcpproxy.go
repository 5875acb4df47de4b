// Package mcpproxy is the MCP server `acpsnap mcp-cassette` runs in front
// of a scenario's MCP server (docs/cassettes.md, "Any agent's MCP tools").
// It speaks MCP on its stdin and stdout to the agent, which believes it is
// the real server:
//
//   - record: it starts the real server (Config.Command) as an MCP client
//     and records, through package cassette/tool, its initialize answer
//     (serverInfo, instructions), its tools/list and every tools/call;
//   - replay: it answers initialize, tools/list and tools/call from the
//     cassette and never starts the real server.
//
// Every record is at path "root": call 0 is "initialize", call 1
// "tools/list", then one call per tools/call named by the MCP tool, with
// its arguments. The selection is everything ("*").
//
// When the agent disconnects, Run closes the cassette (record: publish;
// replay: report a mismatch, an extra call, an unconsumed record) and, when
// Config.Report is set, writes the outcome there, so the harness can fail
// the scenario even though the proxy is the agent's child, not its own.
package mcpproxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acpsnap/acpsnap/internal/cassette/tool"
	"github.com/acpsnap/acpsnap/internal/safefile"
)

// Config configures Run.
type Config struct {
	Mode    tool.Mode // tool.Record or tool.Replay
	File    string    // the cassette
	Command []string  // the real server's argv; record only (replay never starts it)
	Report  string    // where to write the Report; "": nowhere
	Stderr  io.Writer // the real server's stderr; nil: discarded
	// Cwd, Home and Root are the run's folders: the cassette stores them
	// as {{cwd}}, {{home}} and {{root}} (tool.Config.Paths). "" (all
	// three): everything is stored as given.
	Cwd, Home, Root string
}

// Report is the outcome Run writes to Config.Report, as JSON.
type Report struct {
	Error string `json:"error,omitempty"` // "": the cassette closed cleanly
}

// include selects every call.
var include = []string{"*"}

// Call names of the two protocol answers the cassette holds besides
// tools/call.
const (
	callInitialize = "initialize"
	callToolsList  = "tools/list"
)

// Run serves MCP on in and out until the client disconnects or ctx ends,
// then closes the cassette and writes the report. Its error is the
// cassette's, or why the proxy could not start.
func Run(ctx context.Context, cfg Config, in io.ReadCloser, out io.WriteCloser) error {
	tc := tool.Config{Mode: cfg.Mode, File: cfg.File, Include: include}
	if cfg.Cwd != "" || cfg.Home != "" || cfg.Root != "" {
		tc.Paths = tool.RunPaths(cfg.Cwd, cfg.Home, cfg.Root)
	}
	cas, err := tool.Open(tc)
	if err != nil {
		return report(cfg, fmt.Errorf("mcp-cassette: %w", err))
	}
	up, err := upstream(ctx, cfg)
	if err != nil {
		cas.Close()
		return report(cfg, err)
	}
	err = serve(ctx, cas, up, in, out)
	if up != nil {
		up.Close()
	}
	return report(cfg, errors.Join(err, cas.Close()))
}

// upstream connects to the real server in record mode; nil in replay.
func upstream(ctx context.Context, cfg Config) (*mcp.ClientSession, error) {
	if cfg.Mode != tool.Record {
		return nil, nil
	}
	if len(cfg.Command) == 0 {
		return nil, errors.New("mcp-cassette: record needs the real server's command")
	}
	cmd := exec.Command(cfg.Command[0], cfg.Command[1:]...)
	cmd.Stderr = cfg.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "acpsnap-mcp-cassette", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, fmt.Errorf("mcp-cassette: start the real server %q: %w", cfg.Command[0], err)
	}
	return cs, nil
}

// serve builds the server the agent sees from the (recorded) initialize
// answer and tool list, and runs it.
func serve(ctx context.Context, cas tool.Cassette, up *mcp.ClientSession, in io.ReadCloser, out io.WriteCloser) error {
	var info struct {
		ServerInfo   *mcp.Implementation `json:"serverInfo"`
		Instructions string              `json:"instructions,omitempty"`
	}
	if err := through(ctx, cas, callInitialize, nil, &info, func() (any, error) {
		r := up.InitializeResult()
		return map[string]any{"serverInfo": r.ServerInfo, "instructions": r.Instructions}, nil
	}); err != nil {
		return err
	}
	var list struct {
		Tools []*mcp.Tool `json:"tools"`
	}
	if err := through(ctx, cas, callToolsList, nil, &list, func() (any, error) {
		return allTools(ctx, up)
	}); err != nil {
		return err
	}
	if info.ServerInfo == nil {
		info.ServerInfo = &mcp.Implementation{Name: "mcp-cassette"}
	}
	srv := mcp.NewServer(info.ServerInfo, &mcp.ServerOptions{Instructions: info.Instructions})
	for _, t := range list.Tools {
		if err := objectSchema(t); err != nil {
			return err
		}
		srv.AddTool(t, handler(cas, up, t.Name))
	}
	err := srv.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
	if errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// handler answers tools/call of tool name through the cassette; the body
// (record only) forwards it to the real server.
func handler(cas tool.Cassette, up *mcp.ClientSession, name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args := req.Params.Arguments
		var res mcp.CallToolResult
		err := through(ctx, cas, name, args, &res, func() (any, error) {
			return up.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		})
		if err != nil {
			return nil, err
		}
		return &res, nil
	}
}

// through runs one call through the cassette and decodes its value into v.
func through(ctx context.Context, cas tool.Cassette, name string, args json.RawMessage, v any, body func() (any, error)) error {
	raw, err := cas.Call(ctx, "root", name, args, func(context.Context) (json.RawMessage, error) {
		x, err := body()
		if err != nil {
			return nil, err
		}
		return json.Marshal(x)
	})
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("mcp-cassette: the recorded %s answer: %w (record again)", name, err)
	}
	return nil
}

// allTools lists every tool of the real server, page by page.
func allTools(ctx context.Context, up *mcp.ClientSession) (any, error) {
	var tools []*mcp.Tool
	for t, err := range up.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, t)
	}
	return map[string]any{"tools": tools}, nil
}

// objectSchema refuses a tool whose input schema is not an object (the
// SDK would panic serving it).
func objectSchema(t *mcp.Tool) error {
	m, ok := t.InputSchema.(map[string]any)
	if !ok || m["type"] != "object" {
		return fmt.Errorf("mcp-cassette: tool %q: the input schema is not an object schema", t.Name)
	}
	return nil
}

// report writes the outcome to cfg.Report (when set) and returns err.
func report(cfg Config, err error) error {
	if cfg.Report == "" {
		return err
	}
	var r Report
	if err != nil {
		r.Error = err.Error()
	}
	b, _ := json.Marshal(r)
	if werr := safefile.Write(cfg.Report, append(b, '\n'), 0o644); werr != nil {
		return errors.Join(err, fmt.Errorf("mcp-cassette: write the report: %w", werr))
	}
	return err
}
