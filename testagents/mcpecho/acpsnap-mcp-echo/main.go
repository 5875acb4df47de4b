// Command acpsnap-mcp-echo serves package mcpecho's MCP server on stdin and
// stdout: the real server behind the bundled corpus's MCP scenario, needed
// only to record it (scripts/gen-corpus builds it and puts it on PATH).
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/acpsnap/acpsnap/testagents/mcpecho"
)

func main() {
	if err := mcpecho.Serve(context.Background(), os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "acpsnap-mcp-echo:", err)
		os.Exit(1)
	}
}
