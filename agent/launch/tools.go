package launch

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/acpsnap/acpsnap/agent"
	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/cassette/tool"
)

// toolCassette opens the tool cassette the agentenv contract names
// (ACPSNAP_TOOL_CASSETTE, ACPSNAP_TOOL_INCLUDE): a recorder in record mode,
// a player in replay; nil when the scenario selects no tools.
//
// Inside a run (ACPSNAP_ROOT set) the cassette stores the run's folders,
// the agent's working directory and home among them, as tokens
// (tool.Config.Paths), so it replays in the next run's folders.
func toolCassette(c agentenv.Agent, home string) (*agent.ToolCassette, error) {
	if c.ToolCassette == "" {
		return nil, nil
	}
	var include []string
	if err := json.Unmarshal(c.ToolInclude, &include); err != nil {
		return nil, &UsageError{fmt.Errorf("agent: %s: want a JSON array of tool names and globs: %w", agentenv.ToolIncludeVar, err)}
	}
	inc, err := tool.NewInclude(include)
	if err != nil {
		return nil, &UsageError{fmt.Errorf("agent: %s: %w", agentenv.ToolIncludeVar, err)}
	}
	mode := tool.Replay
	if c.Mode == agentenv.Record {
		mode = tool.Record
	}
	cfg := tool.Config{Mode: mode, File: c.ToolCassette, Include: include}
	if cwd, err := os.Getwd(); err == nil && c.Root != "" {
		cfg.Paths = tool.RunPaths(cwd, home, c.Root)
	}
	cas, err := tool.Open(cfg)
	if err != nil {
		return nil, fmt.Errorf("agent: open the tool cassette: %w", err)
	}
	return &agent.ToolCassette{Cassette: cas, Include: inc}, nil
}

// closeTools closes the tool cassette after Serve: its error (a mismatch,
// an extra or unconsumed call, an unfinished recording) fails the run.
func closeTools(tc *agent.ToolCassette, err error) error {
	if tc == nil {
		return err
	}
	if cerr := tc.Cassette.Close(); cerr != nil {
		return errors.Join(err, fmt.Errorf("agent: %w", cerr))
	}
	return err
}
