package relay

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/harness/harvest"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestMCPServers: each declared server becomes its proxy, with the
// server's command after "--", templates filled, and the cassette the
// mode says (the scenario's in replay, the sessions folder's in record).
func TestMCPServers(t *testing.T) {
	rts := &harvest.Roots{Base: "/r", Cwd: "/r/workspace", Home: "/r/home", Sessions: "/r/sessions"}
	servers := []scenario.MCPServer{{Name: "echo", Command: "{{cwd}}/echo", Args: []string{"-v"}, Env: []scenario.EnvVar{{Name: "K", Value: "{{cwd}}"}}}}
	expand := func(s string) string { return strings.ReplaceAll(s, "{{cwd}}", rts.Cwd) }
	for _, record := range []bool{false, true} {
		out, err := MCP{Acpsnap: "/bin/acpsnap", Record: record, Dir: "/corpus/s", Roots: rts}.Servers(servers, expand)
		if err != nil {
			t.Fatal(err)
		}
		s := out[0].Stdio
		cas := "/corpus/s/" + scenario.MCPCassetteFile("echo")
		if record {
			cas = "/r/sessions/" + scenario.MCPCassetteFile("echo")
		}
		i := slices.Index(s.Args, "--")
		if s.Command != "/bin/acpsnap" || i < 0 || !slices.Equal(s.Args[i+1:], []string{"/r/workspace/echo", "-v"}) ||
			!slices.Contains(s.Args, cas) || s.Env[0].Value != "/r/workspace" {
			t.Errorf("record %v: proxy %s %q env %v", record, s.Command, s.Args, s.Env)
		}
	}
}

// TestMCPCollect: a server whose proxy never reported fails the run, by
// name; in record the cassette a proxy published is returned.
func TestMCPCollect(t *testing.T) {
	dir := t.TempDir()
	rts := &harvest.Roots{Sessions: dir}
	report := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, "mcp."+name+".report.json"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	report("ok", `{}`)
	if err := os.WriteFile(filepath.Join(dir, scenario.MCPCassetteFile("ok")), []byte("cassette\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cassettes, errs := MCP{Record: true, Roots: rts}.Collect([]scenario.MCPServer{{Name: "ok"}, {Name: "silent"}})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "mcp server silent: its mcp-cassette proxy never reported") {
		t.Errorf("errors %v, want one for silent", errs)
	}
	if got := string(cassettes[scenario.MCPCassetteFile("ok")]); got != "cassette\n" {
		t.Errorf("cassette %q", got)
	}
}
