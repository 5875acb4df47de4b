package scenario_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestLoadInputMCPServers: newSession's mcpServers is decoded strictly.
func TestLoadInputMCPServers(t *testing.T) {
	type testCase struct {
		name    string
		servers string // the mcpServers value of one newSession step
		wantErr string // "" means success
	}
	for _, tc := range []testCase{
		{"full", `[{"name":"echo","command":"srv","args":["-v","{{cwd}}"],"env":[{"name":"A","value":"1"}]}]`, ""},
		{"not an array", `{}`, "$.steps[0].mcpServers: want an array"},
		{"unknown key", `[{"name":"e","command":"c","cwd":"/"}]`, "$.steps[0].mcpServers[0].cwd: unknown key"},
		{"no name", `[{"command":"c"}]`, "$.steps[0].mcpServers[0].name: missing"},
		{"bad name", `[{"name":"a b","command":"c"}]`, `$.steps[0].mcpServers[0].name: "a b": want 1 to 64`},
		{"double underscore", `[{"name":"a__b","command":"c"}]`, `without "__"`},
		{"empty command", `[{"name":"e","command":""}]`, "$.steps[0].mcpServers[0].command: must not be empty"},
		{"args not strings", `[{"name":"e","command":"c","args":[1]}]`, "$.steps[0].mcpServers[0].args: want an array of strings"},
		{"env unknown key", `[{"name":"e","command":"c","env":[{"name":"A","value":"1","x":2}]}]`, "$.steps[0].mcpServers[0].env[0].x: unknown key"},
		{"env twice", `[{"name":"e","command":"c","env":[{"name":"A","value":"1"},{"name":"A","value":"2"}]}]`, `env[1].name: "A" is given twice`},
		{"server twice", `[{"name":"e","command":"c"},{"name":"e","command":"d"}]`, `$.steps[0].mcpServers[1].name: "e" is declared twice`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "input.json", `{"steps":[{"op":"newSession","mcpServers":`+tc.servers+`}]}`)
			in, err := scenario.LoadInput(path)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := []scenario.MCPServer{{Name: "echo", Command: "srv", Args: []string{"-v", "{{cwd}}"}, Env: []scenario.EnvVar{{Name: "A", Value: "1"}}}}
			if diff := cmp.Diff(want, in.MCPServers()); diff != "" {
				t.Errorf("servers (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMCPCassetteFile: the file name round-trips and only names a server
// that could be declared.
func TestMCPCassetteFile(t *testing.T) {
	if name, ok := scenario.MCPServerName(scenario.MCPCassetteFile("echo")); !ok || name != "echo" {
		t.Errorf("round trip = %q, %v", name, ok)
	}
	for _, f := range []string{"mcp..cassette.jsonl", "mcp.a b.cassette.jsonl", "tools.cassette.jsonl", "mcp.x.cassette.json"} {
		if _, ok := scenario.MCPServerName(f); ok {
			t.Errorf("%q taken for an MCP cassette", f)
		}
	}
}
