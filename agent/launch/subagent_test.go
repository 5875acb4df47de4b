package launch

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/cassette/subagent"
)

func TestSubagentsFromContract(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "subagents.cassette.jsonl")
	if b, err := subagents(agentenv.Agent{Mode: agentenv.Replay}); b != nil || err != nil {
		t.Errorf("no cassette: %v, %v; want nil, nil", b, err)
	}
	rec, err := subagents(agentenv.Agent{Mode: agentenv.Record, SubagentCassette: path, SubagentOptions: json.RawMessage(`{"requestStorage":"full"}`)})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := rec.(*subagent.Recorder); !ok {
		t.Fatalf("record mode built %T, want a *subagent.Recorder", rec)
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	play, err := subagents(agentenv.Agent{Mode: agentenv.Replay, SubagentCassette: path})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := play.(*subagent.Player); !ok {
		t.Fatalf("replay mode built %T, want a *subagent.Player", play)
	}
	for _, tc := range []struct {
		name string
		a    agentenv.Agent
		want string
		use  bool
	}{
		{"unknown option", agentenv.Agent{Mode: agentenv.Replay, SubagentCassette: path, SubagentOptions: json.RawMessage(`{"timming":"recorded"}`)}, "unknown field", true},
		{"invalid option", agentenv.Agent{Mode: agentenv.Replay, SubagentCassette: path, SubagentOptions: json.RawMessage(`{"timing":"later"}`)}, "timing", false},
		{"missing cassette", agentenv.Agent{Mode: agentenv.Replay, SubagentCassette: filepath.Join(dir, "none.jsonl")}, "replay the subagent cassette", false},
		{"outside acpsnap", agentenv.Agent{SubagentCassette: path}, "outside acpsnap", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := subagents(tc.a)
			var ue *UsageError
			if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &ue) != tc.use {
				t.Errorf("error %v, want one saying %q (usage error: %v)", err, tc.want, tc.use)
			}
		})
	}
}

func TestLogicalClock(t *testing.T) {
	now := logicalClock()
	a, b := now(), now()
	if b.Sub(a) != tick || !a.Equal(time.Unix(0, 0).Add(tick)) {
		t.Errorf("readings %v, %v: want the epoch plus %v, then %v later", a, b, tick, tick)
	}
}
