// Package mcpecho is a tiny MCP server for tests and the bundled corpus:
// two pure tools over stdio, so that a recording through the MCP proxy
// (`acpsnap mcp-cassette`, docs/cassettes.md) has a real server to talk to.
//
//	echo {text}       → "echo: <text>"
//	add  {a, b}       → "<a> + <b> = <sum>" (integers)
//
// Every call appends one line to the file named by $MCPECHO_CALLS, when
// set, so a test can count the real executions (zero in replay).
//
// The program acpsnap-mcp-echo (in the folder of that name) serves it on
// stdin and stdout; test binaries serve it by calling Serve.
package mcpecho

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// CallsVar names the file every call appends a line to ("": none).
const CallsVar = "MCPECHO_CALLS"

type echoArgs struct {
	Text string `json:"text" jsonschema:"the text to echo"`
}

type addArgs struct {
	A int `json:"a" jsonschema:"the first addend"`
	B int `json:"b" jsonschema:"the second addend"`
}

// Server returns the server with its two tools.
func Server() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpecho", Version: "1"}, &mcp.ServerOptions{Instructions: "Echo text and add integers."})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo the text back."}, func(ctx context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
		count("echo")
		return text("echo: " + a.Text), nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "Add two integers."}, func(ctx context.Context, _ *mcp.CallToolRequest, a addArgs) (*mcp.CallToolResult, any, error) {
		count("add")
		return text(fmt.Sprintf("%d + %d = %d", a.A, a.B, a.A+a.B)), nil, nil
	})
	return s
}

// Serve runs the server over in and out until in ends.
func Serve(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	return Server().Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// count appends the tool's name to $MCPECHO_CALLS, when set.
func count(tool string) {
	p := os.Getenv(CallsVar)
	if p == "" {
		return
	}
	f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	fmt.Fprintln(f, tool)
}
