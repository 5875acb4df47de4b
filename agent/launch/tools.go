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
// It stores the run's folders as tokens (paths, from runPaths).
func toolCassette(c agentenv.Agent, paths *tool.Paths) (*agent.ToolCassette, error) {
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
	cas, err := tool.Open(tool.Config{Mode: mode, File: c.ToolCassette, Include: include, Paths: paths})
	if err != nil {
		return nil, fmt.Errorf("agent: open the tool cassette: %w", err)
	}
	return &agent.ToolCassette{Cassette: cas, Include: inc}, nil
}

// runPaths are the run's folders inside a run (ACPSNAP_ROOT set): the
// agent's working directory, its home and the root, which the cassettes
// store as tokens so that they replay in the next run's folders. nil
// outside a run.
func runPaths(c agentenv.Agent, getenv func(string) string) *tool.Paths {
	cwd, err := os.Getwd()
	if err != nil || c.Root == "" {
		return nil
	}
	return tool.RunPaths(cwd, getenv("HOME"), c.Root)
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
