package client

import (
	"context"
	"testing"
	"time"

	acp "github.com/coder/acp-go-sdk"
)

// TestTerminalOutputCeiling: the harness keeps at most its own ceiling of
// a terminal's output, whatever outputByteLimit the agent asks for.
func TestTerminalOutputCeiling(t *testing.T) {
	const ceiling = 64
	for _, asked := range []int{10, 1e13} {
		ts := &Terminals{grace: time.Second, ceiling: ceiling}
		cwd := t.TempDir()
		c := &Client{Cwd: cwd, Root: openRoot(t, cwd), Terms: ts}
		ctx := context.Background()
		limit := asked
		resp, err := c.CreateTerminal(ctx, acp.CreateTerminalRequest{Command: "head", Args: []string{"-c", "65", "/dev/zero"}, Cwd: &cwd, OutputByteLimit: &limit})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.WaitForTerminalExit(ctx, acp.WaitForTerminalExitRequest{TerminalId: resp.TerminalId}); err != nil {
			t.Fatal(err)
		}
		out, err := c.TerminalOutput(ctx, acp.TerminalOutputRequest{TerminalId: resp.TerminalId})
		if err != nil {
			t.Fatal(err)
		}
		if want := min(asked, ceiling); len(out.Output) != want || !out.Truncated {
			t.Errorf("outputByteLimit %d: kept %d bytes (truncated %v), want %d, truncated", asked, len(out.Output), out.Truncated, want)
		}
		ts.CloseAll()
	}
}
