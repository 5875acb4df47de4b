package harness

import (
	"fmt"
	"os/exec"
	"path/filepath"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/cassette"
	"github.com/acpsnap/acpsnap/cassette/mcpproxy"
	"github.com/acpsnap/acpsnap/cassette/tool"
	"github.com/acpsnap/acpsnap/harness/internal/harvest"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/scenario"
)

// mcpProxies is what session/new's mcpServers carry for the servers a
// newSession step declares: instead of each server, the proxy
// `<Config.Acpsnap> mcp-cassette -mode M -file F -report R -- COMMAND ARGS…`
// (docs/cassettes.md), which records the server into the scenario's
// mcp.<name>.cassette.jsonl, or replays it from there without starting it.
// The server's own env reaches the proxy, which passes it on.
func (r *run) mcpProxies(servers []scenario.MCPServer) ([]acp.McpServer, error) {
	out := []acp.McpServer{}
	if len(servers) == 0 {
		return out, nil
	}
	bin, err := r.acpsnap()
	if err != nil {
		return nil, err
	}
	for _, s := range servers {
		file := scenario.MCPCassetteFile(s.Name)
		argv := []string{r.expand(s.Command)}
		for _, a := range s.Args {
			argv = append(argv, r.expand(a))
		}
		args := mcpproxy.Args(mcpproxy.Config{Mode: tool.Mode(r.cfg.Mode.agent()),
			File: cassettePath(r.cfg, r.roots, file), Report: r.mcpReport(s.Name), Command: argv,
			Cwd: r.roots.Cwd, Home: r.roots.Home, Root: r.roots.Base})
		env := []acp.EnvVariable{}
		for _, e := range s.Env {
			env = append(env, acp.EnvVariable{Name: e.Name, Value: r.expand(e.Value)})
		}
		out = append(out, acp.McpServer{Stdio: &acp.McpServerStdio{Name: s.Name, Command: bin, Args: args, Env: env}})
	}
	return out, nil
}

// acpsnap is the binary that serves mcp-cassette: Config.Acpsnap, else
// "acpsnap" on PATH.
func (r *run) acpsnap() (string, error) {
	if r.cfg.Acpsnap != "" {
		return r.cfg.Acpsnap, nil
	}
	bin, err := exec.LookPath("acpsnap")
	if err != nil {
		return "", fmt.Errorf("input.json declares MCP servers and the harness has no acpsnap binary to proxy them (Config.Acpsnap, or acpsnap on PATH): %w", err)
	}
	return bin, nil
}

// mcpReport is where the proxy of server name writes its outcome.
func (r *run) mcpReport(name string) string {
	return filepath.Join(r.roots.Sessions, "mcp."+name+".report.json")
}

// collectMCP fails the run for every declared server whose proxy did not
// report, or reported an error (a mismatch, an extra or unconsumed call, an
// unfinished recording), and in record mode harvests the cassettes the
// proxies published into res.Cassettes.
func (r *run) collectMCP(res *Result) []error {
	var errs []error
	for _, s := range r.in.MCPServers() {
		if err := harvest.MCPReport(r.mcpReport(s.Name)); err != nil {
			errs = append(errs, fmt.Errorf("mcp server %s: %w", s.Name, err))
			continue
		}
		if r.cfg.Mode != Record {
			continue
		}
		name := scenario.MCPCassetteFile(s.Name)
		b, err := safefile.ReadAs(filepath.Join(r.roots.Sessions, name), "sessions/"+name, cassette.MaxFileBytes)
		if err != nil {
			errs = append(errs, fmt.Errorf("mcp server %s: harvest %s: %w", s.Name, name, err))
			continue
		}
		if res.Cassettes == nil {
			res.Cassettes = map[string][]byte{}
		}
		res.Cassettes[name] = b
	}
	return errs
}
