package relay

import (
	"fmt"
	"os/exec"
	"path/filepath"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/internal/cassette"
	"github.com/acpsnap/acpsnap/internal/cassette/tool"
	"github.com/acpsnap/acpsnap/internal/harness/harvest"
	"github.com/acpsnap/acpsnap/internal/mcpproxy"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// MCP puts the proxy `acpsnap mcp-cassette` (docs/cassettes.md) in front
// of each MCP server a newSession step declares, and collects what the
// proxies reported and, in Record, recorded.
type MCP struct {
	Acpsnap string         // the acpsnap binary; "": "acpsnap" on PATH
	Record  bool           // record the servers into the sessions folder; false: replay the scenario's cassettes
	Dir     string         // the scenario folder, where replay finds the cassettes
	Roots   *harvest.Roots // the run's folders
}

// Servers is what session/new's mcpServers carry for servers: instead of
// each server, the proxy
// `<Acpsnap> mcp-cassette -mode M -file F -report R -- COMMAND ARGS…`,
// which records the server into the scenario's mcp.<name>.cassette.jsonl,
// or replays it from there without starting it. The server's own env
// reaches the proxy, which passes it on. expand fills the templates of
// the server's command, arguments and env ({{cwd}}).
func (c MCP) Servers(servers []scenario.MCPServer, expand func(string) string) ([]acp.McpServer, error) {
	out := []acp.McpServer{}
	if len(servers) == 0 {
		return out, nil
	}
	bin, err := c.binary()
	if err != nil {
		return nil, err
	}
	mode := tool.Replay
	if c.Record {
		mode = tool.Record
	}
	for _, s := range servers {
		argv := []string{expand(s.Command)}
		for _, a := range s.Args {
			argv = append(argv, expand(a))
		}
		args := mcpproxy.Args(mcpproxy.Config{Mode: mode,
			File: c.Roots.Cassette(c.Record, c.Dir, scenario.MCPCassetteFile(s.Name)), Report: c.report(s.Name), Command: argv,
			Cwd: c.Roots.Cwd, Home: c.Roots.Home, Root: c.Roots.Base})
		env := []acp.EnvVariable{}
		for _, e := range s.Env {
			env = append(env, acp.EnvVariable{Name: e.Name, Value: expand(e.Value)})
		}
		out = append(out, acp.McpServer{Stdio: &acp.McpServerStdio{Name: s.Name, Command: bin, Args: args, Env: env}})
	}
	return out, nil
}

// binary is the binary that serves mcp-cassette: Acpsnap, else "acpsnap"
// on PATH.
func (c MCP) binary() (string, error) {
	if c.Acpsnap != "" {
		return c.Acpsnap, nil
	}
	bin, err := exec.LookPath("acpsnap")
	if err != nil {
		return "", fmt.Errorf("input.json declares MCP servers and the harness has no acpsnap binary to proxy them (Config.Acpsnap, or acpsnap on PATH): %w", err)
	}
	return bin, nil
}

// report is where the proxy of server name writes its outcome.
func (c MCP) report(name string) string {
	return filepath.Join(c.Roots.Sessions, "mcp."+name+".report.json")
}

// Collect fails the run for every server whose proxy did not report, or
// reported an error (a mismatch, an extra or unconsumed call, an
// unfinished recording), and in Record returns the cassettes the proxies
// published, by file name (nil: none).
func (c MCP) Collect(servers []scenario.MCPServer) (map[string][]byte, []error) {
	var errs []error
	var cassettes map[string][]byte
	for _, s := range servers {
		if err := harvest.MCPReport(c.report(s.Name)); err != nil {
			errs = append(errs, fmt.Errorf("mcp server %s: %w", s.Name, err))
			continue
		}
		if !c.Record {
			continue
		}
		name := scenario.MCPCassetteFile(s.Name)
		b, err := safefile.ReadAs(filepath.Join(c.Roots.Sessions, name), "sessions/"+name, cassette.MaxFileBytes)
		if err != nil {
			errs = append(errs, fmt.Errorf("mcp server %s: harvest %s: %w", s.Name, name, err))
			continue
		}
		if cassettes == nil {
			cassettes = map[string][]byte{}
		}
		cassettes[name] = b
	}
	return cassettes, errs
}
