package launch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/cassette/subagent"
)

// tick is how far the recording clock advances per boundary event.
const tick = 100 * time.Millisecond

// subagents builds the subagent cassette of the contract
// (ACPSNAP_SUBAGENT_CASSETTE, ACPSNAP_SUBAGENT_OPTIONS): a Recorder at the
// path in record mode, a Player of it in replay, nil when there is none.
//
// A recording measures boundary time on a logical clock that advances by
// 100ms at each reading (admission, start and end of a call, which the
// agent takes in call order): a re-recording is byte-identical, and
// timing "recorded" replays the order of the recording (the first of two
// calls of one message started first and ended first, so it lasted
// longer), not wall time.
func subagents(c agentenv.Agent) (subagent.Boundary, error) {
	if c.SubagentCassette == "" {
		return nil, nil
	}
	var opts subagent.Options
	if c.SubagentOptions != nil {
		dec := json.NewDecoder(bytes.NewReader(c.SubagentOptions))
		dec.DisallowUnknownFields() // the options are closed
		if err := dec.Decode(&opts); err != nil {
			return nil, &UsageError{fmt.Errorf("agent: %s: %w", agentenv.SubagentOptionsVar, err)}
		}
	}
	switch c.Mode {
	case agentenv.Record:
		opts.Now = logicalClock()
		r, err := subagent.Record(c.SubagentCassette, opts)
		if err != nil {
			return nil, fmt.Errorf("agent: record the subagent cassette: %w", err)
		}
		return r, nil
	case agentenv.Replay:
		p, err := subagent.Replay(c.SubagentCassette, opts)
		if err != nil {
			return nil, fmt.Errorf("agent: replay the subagent cassette: %w", err)
		}
		return p, nil
	}
	return nil, &UsageError{fmt.Errorf("agent: %s is set outside acpsnap (%s unset)", agentenv.SubagentCassetteVar, agentenv.ModeVar)}
}

// logicalClock starts at the Unix epoch and advances by tick at each
// reading.
func logicalClock() func() time.Time {
	var mu sync.Mutex
	t := time.Unix(0, 0)
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		t = t.Add(tick)
		return t
	}
}
