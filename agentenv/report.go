package agentenv

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/safefile"
)

// ReportFile is the name of the consumption report the agent writes into its
// sessions directory at shutdown.
const ReportFile = "replay-report.json"

// Report tells how much of each fixture's script was served, and every loud
// error the replay raised. The harness fails a scenario with an entry left
// or an error.
type Report struct {
	Fixtures []FixtureReport `json:"fixtures"`
	Errors   []string        `json:"errors,omitempty"`
}

// FixtureReport is the consumption of one fixture's script.
type FixtureReport struct {
	Fixture string `json:"fixture"` // base file name ("session.1.jsonl"); for a Server "primary" or the child's tool-call id
	Served  int    `json:"served"`  // entries served
	Left    int    `json:"left"`    // entries never served
}

// WriteReport writes r as dir/ReportFile atomically (a temporary file in dir,
// then a rename), so a reader never sees half a report.
func WriteReport(dir string, r Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("agentenv: write report: %w", err)
	}
	if err := safefile.Write(filepath.Join(dir, ReportFile), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("agentenv: write report: %w", err)
	}
	return nil
}
