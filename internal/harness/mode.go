package harness

import "github.com/acpsnap/acpsnap/agentenv"

// Mode is what a run may write (docs/format.md, "Running"), and so where
// the agent's model answers from: the committed logs in every mode but
// Record, the live model in Record. It is package check's Mode too: check
// decides what to write by it, the harness only whether the run records.
type Mode string

// Modes.
const (
	Replay  Mode = "replay"  // write nothing
	Update  Mode = "update"  // write stdout.expected.jsonl only
	Refresh Mode = "refresh" // write stdout and session logs (authored scenarios too)
	Record  Mode = "record"  // live model; write both; recording: live scenarios only
)

// Writes reports whether the mode writes fixtures.
func (m Mode) Writes() bool { return m == Update || m == Refresh || m == Record }

// known reports whether m is one of the modes.
func (m Mode) known() bool { return m == Replay || m == Update || m == Refresh || m == Record }

// agent is the mode of the native contract (ACPSNAP_MODE) and of the
// cassettes: agentenv.Record when the run records, else agentenv.Replay.
func (m Mode) agent() string {
	if m == Record {
		return agentenv.Record
	}
	return agentenv.Replay
}
