package scenario

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// MCPServer is one stdio MCP server a newSession step declares. The
// harness does not hand it to the agent as is: it hands a proxy
// (`acpsnap mcp-cassette`) that records the server into
// MCPCassetteFile(Name) and replays it from there without starting it.
type MCPServer struct {
	Name    string   `json:"name"`    // [A-Za-z0-9_-], 1 to 64, no "__"; unique in input.json
	Command string   `json:"command"` // the real server (found on PATH when not a path); record only
	Args    []string `json:"args,omitempty"`
	Env     []EnvVar `json:"env,omitempty"`
}

// EnvVar is one variable of an MCP server's environment.
type EnvVar struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// MCPCassetteFile is the tool cassette of the MCP server name:
// "mcp.<name>.cassette.jsonl".
func MCPCassetteFile(name string) string { return "mcp." + name + ".cassette.jsonl" }

// MCPServerName returns the server of an MCP cassette's file name, and
// whether file is one.
func MCPServerName(file string) (string, bool) {
	name, ok := strings.CutPrefix(file, "mcp.")
	if !ok {
		return "", false
	}
	name, ok = strings.CutSuffix(name, ".cassette.jsonl")
	return name, ok && validMCPName(name)
}

// MCPServers lists every server input declares, in step order.
func (in *Input) MCPServers() []MCPServer {
	var out []MCPServer
	for _, s := range in.Steps {
		out = append(out, s.MCPServers...)
	}
	return out
}

var mcpNameRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

func validMCPName(name string) bool {
	return mcpNameRE.MatchString(name) && !strings.Contains(name, "__")
}

// parseMCPServers decodes a newSession's mcpServers strictly: an array of
// objects with only the keys of MCPServer.
func parseMCPServers(p string, v json.RawMessage, dst *[]MCPServer) *inputError {
	return eachObject(p, v, "{name, command, args?, env?}", []string{"name", "command", "args", "env"}, func(p string, m map[string]json.RawMessage) *inputError {
		srv, err := parseMCPServer(p, m)
		if err == nil {
			*dst = append(*dst, srv)
		}
		return err
	})
}

func parseMCPServer(p string, m map[string]json.RawMessage) (MCPServer, *inputError) {
	var s MCPServer
	if err := nonEmpty(p+".name", m["name"], &s.Name); err != nil {
		return s, err
	}
	if !validMCPName(s.Name) {
		return s, &inputError{p + ".name", fmt.Sprintf("%q: want 1 to 64 of A-Z a-z 0-9 _ - without \"__\"", s.Name)}
	}
	if err := nonEmpty(p+".command", m["command"], &s.Command); err != nil {
		return s, err
	}
	if v, ok := m["args"]; ok {
		if err := field(p+".args", v, &s.Args); err != nil {
			return s, &inputError{p + ".args", "want an array of strings"}
		}
	}
	if v, ok := m["env"]; ok {
		if err := parseEnv(p+".env", v, &s.Env); err != nil {
			return s, err
		}
	}
	return s, nil
}

func parseEnv(p string, v json.RawMessage, dst *[]EnvVar) *inputError {
	seen := map[string]bool{}
	return eachObject(p, v, "{name, value}", []string{"name", "value"}, func(ep string, m map[string]json.RawMessage) *inputError {
		var e EnvVar
		if err := nonEmpty(ep+".name", m["name"], &e.Name); err != nil {
			return err
		}
		if err := field(ep+".value", m["value"], &e.Value); err != nil {
			return err
		}
		if seen[e.Name] {
			return &inputError{ep + ".name", fmt.Sprintf("%q is given twice", e.Name)}
		}
		seen[e.Name] = true
		*dst = append(*dst, e)
		return nil
	})
}

// uniqueMCPNames refuses a server name declared twice in input.json: each
// server has one cassette file.
func uniqueMCPNames(steps []Step) *inputError {
	seen := map[string]bool{}
	for i, s := range steps {
		for j, srv := range s.MCPServers {
			if seen[srv.Name] {
				return &inputError{fmt.Sprintf("$.steps[%d].mcpServers[%d].name", i, j), fmt.Sprintf("%q is declared twice (each server has one cassette)", srv.Name)}
			}
			seen[srv.Name] = true
		}
	}
	return nil
}
