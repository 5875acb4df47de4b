package acpsnaptest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestServeMCPRefusesBadCommandLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"no subcommand", nil, 2},
		{"another subcommand", []string{"run"}, 2},
		{"no mode", []string{"mcp-cassette"}, 2},
		{"record without a server", []string{"mcp-cassette", "-mode", "record", "-file", "c.jsonl"}, 2},
		{"help", []string{"mcp-cassette", "-h"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := serveMCP(tc.args); got != tc.want {
				t.Errorf("serveMCP(%q) = %d, want %d", tc.args, got, tc.want)
			}
		})
	}
}

func TestMCPProxyReexecutesTheTestBinary(t *testing.T) {
	bin := MCPProxy(t)
	if filepath.Base(bin) != "acpsnap" {
		t.Errorf("wrapper %s, want one named acpsnap", bin)
	}
	script, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	for _, want := range []string{commandEnv + "='" + mcpCommand + "'", exe} {
		if !strings.Contains(string(script), want) {
			t.Errorf("wrapper script lacks %q:\n%s", want, script)
		}
	}
}
