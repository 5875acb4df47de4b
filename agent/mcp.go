package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"

	acp "github.com/coder/acp-go-sdk"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/acpsnap/acpsnap/model"
)

// mcpPrefix starts the name of every MCP tool the model sees:
// mcp__<server>__<tool>.
const mcpPrefix = "mcp__"

// mcpName is what a server name, and a server's tool name, may be: the
// characters a model's tool name allows.
var mcpName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// validateMCP checks session/new's mcpServers: stdio only, names that make
// valid tool names, each once.
func validateMCP(servers []acp.McpServer) error {
	seen := map[string]bool{}
	for i, s := range servers {
		if s.Stdio == nil {
			return fmt.Errorf("mcpServers[%d]: only stdio MCP servers are supported", i)
		}
		name := s.Stdio.Name
		switch {
		case !mcpName.MatchString(name) || strings.Contains(name, "__"):
			return fmt.Errorf("mcpServers[%d]: name %q: want 1 to 64 of A-Z a-z 0-9 _ - (no \"__\")", i, name)
		case seen[name]:
			return fmt.Errorf("mcpServers[%d]: name %q is given twice", i, name)
		case s.Stdio.Command == "":
			return fmt.Errorf("mcpServers[%d] (%s): command is required", i, name)
		}
		seen[name] = true
	}
	return nil
}

// mcpServer is one started MCP server of a session.
type mcpServer struct {
	name string
	cs   *mcp.ClientSession
}

// startMCP starts every stdio server, connects to it as an MCP client and
// lists its tools; the tools come back in server order, then tool order.
// On failure the servers already started are closed.
func (srv *server) startMCP(servers []acp.McpServer) ([]*mcpServer, []*tool, error) {
	var started []*mcpServer
	var tools []*tool
	for _, s := range servers {
		m, ts, err := srv.connectMCP(s.Stdio)
		if err != nil {
			closeMCP(started)
			return nil, nil, err
		}
		started = append(started, m)
		tools = append(tools, ts...)
	}
	return started, tools, nil
}

// connectMCP starts one server with the tool environment plus its own
// variables, and lists its tools.
func (srv *server) connectMCP(s *acp.McpServerStdio) (*mcpServer, []*tool, error) {
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Env = toolEnv(os.Environ())
	for _, e := range s.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	cmd.Stderr = srv.cfg.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "acpsnap-agent", Version: "1"}, nil)
	cs, err := client.Connect(srv.base, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp server %s: start: %w", s.Name, err)
	}
	m := &mcpServer{name: s.Name, cs: cs}
	var tools []*tool
	for t, err := range cs.Tools(srv.base, nil) {
		if err != nil {
			cs.Close()
			return nil, nil, fmt.Errorf("mcp server %s: tools/list: %w", s.Name, err)
		}
		tl, err := m.tool(t)
		if err != nil {
			cs.Close()
			return nil, nil, err
		}
		tools = append(tools, tl)
	}
	return m, tools, nil
}

// tool is the agent tool that calls the server's tool t.
func (m *mcpServer) tool(t *mcp.Tool) (*tool, error) {
	if !mcpName.MatchString(t.Name) {
		return nil, fmt.Errorf("mcp server %s: tool name %q: want 1 to 64 of A-Z a-z 0-9 _ -", m.name, t.Name)
	}
	schema, err := json.Marshal(t.InputSchema)
	if err != nil || string(schema) == "null" {
		schema = []byte(`{"type":"object"}`)
	}
	name := mcpPrefix + m.name + "__" + t.Name
	title := m.name + ": " + t.Name
	return &tool{
		spec:  model.ToolSpec{Name: name, Description: t.Description, Parameters: schema},
		kind:  acp.ToolKindOther,
		asks:  true,
		title: func(map[string]any) string { return title },
		exec: func(tr *turn, c model.ToolCall) (json.RawMessage, error) {
			return m.call(tr.ctx, t.Name, c.Arguments)
		},
		render: renderMCP,
	}, nil
}

// call runs tools/call and returns the result as JSON (what the tool
// cassette records).
func (m *mcpServer) call(ctx context.Context, name, args string) (json.RawMessage, error) {
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	res, err := m.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	if err != nil {
		return nil, fmt.Errorf("mcp server %s: tools/call %s: %v", m.name, name, err)
	}
	return json.Marshal(res)
}

// mcpValue is the part of a CallToolResult renderMCP reads.
type mcpValue struct {
	Content []struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		MIMEType string `json:"mimeType"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

// renderMCP is an MCP tool's result text: its text contents, one per
// line ("[image/png image]" and the like for the others), or its
// structured content when it has no content; isError makes it an error
// result.
func renderMCP(raw json.RawMessage) (string, error) {
	var v mcpValue
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", fmt.Errorf("tool cassette: the recorded MCP result: %v (record again)", err)
	}
	var parts []string
	for _, c := range v.Content {
		if c.Type == "text" {
			parts = append(parts, c.Text)
		} else {
			parts = append(parts, fmt.Sprintf("[%s %s]", strings.TrimSpace(c.MIMEType), c.Type))
		}
	}
	if len(parts) == 0 && len(v.StructuredContent) > 0 {
		parts = append(parts, string(v.StructuredContent))
	}
	text := truncate(strings.Join(parts, "\n"))
	if text == "" {
		text = "(no content)"
	}
	if v.IsError {
		return "", errors.New(text)
	}
	return text, nil
}

// closeMCP ends the sessions of servers (closing their stdin; the SDK
// waits for them to exit, then terminates them).
func closeMCP(servers []*mcpServer) error {
	var errs []error
	for _, m := range servers {
		if err := m.cs.Close(); err != nil {
			errs = append(errs, fmt.Errorf("mcp server %s: close: %w", m.name, err))
		}
	}
	return errors.Join(errs...)
}
