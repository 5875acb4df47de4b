package llmreplay

import (
	"context"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// Config says which fixtures a Player serves: the paths the agent reads
// from its contract (agentenv.Agent's Fixture, FixtureChildren and
// Override).
type Config struct {
	Primary  string   // the primary session's fixture (session.jsonl); required
	Children []string // the child fixtures (session.N.jsonl); nil: none
	Override string   // replay.override.json; "": none
	// NewID makes the live ids of the tool calls the fixtures serve:
	// "call_" + NewID(). nil: 16 random hex digits.
	NewID func() string
}

// StreamRequest names the session a model call belongs to, and what the
// fixture's placeholders are expanded with.
type StreamRequest struct {
	SessionID string // the live session id
	SpawnedBy string // the live id of the tool call that spawned the session; "": a top-level session
	Cwd       string // the live cwd: it expands {{cwd}}, and a hang's ready file is made in it
	// Request is the live request as RequestText renders it: the text
	// {{fromRequest:<regex>}} placeholders are matched against. nil: a
	// chunk with such a placeholder fails the call.
	Request []byte
}

// Player serves the recorded model calls of a scenario's fixtures, in the
// order they were recorded, one cursor per session. It is safe for
// concurrent use; the calls of one session must not overlap.
type Player struct{ p *replay.Player }

// Load reads and derives the fixtures of cfg, applies the override, and
// returns a Player ready to serve them. Errors name the file, the line and
// the JSON path at fault.
func Load(cfg Config) (*Player, error) {
	p, err := replay.Load(replay.Config{Primary: cfg.Primary, Children: cfg.Children, Override: cfg.Override, NewID: cfg.NewID})
	if err != nil {
		return nil, err
	}
	return &Player{p}, nil
}

// Stream serves the next recorded call of req's session through emit, as
// if the model sent it. A recorded provider error is returned as a
// *model.ProviderError after its chunks; a recorded hang blocks until ctx
// is done. A call the fixtures cannot serve fails with a
// *model.ProviderError of code REPLAY, which Report keeps too.
func (p *Player) Stream(ctx context.Context, req StreamRequest, emit func(model.Chunk) error) error {
	return p.p.Stream(ctx, replay.StreamRequest(req), emit)
}

// Open binds a top-level session the agent just created to the next
// top-level fixture, in creation order. An agent that never calls it gets
// its top-level sessions bound in the order of their first model calls.
func (p *Player) Open(sessionID string) { p.p.Open(sessionID) }

// Resume binds a session the agent reopened from its log (session/load,
// or a restart) to the primary fixture, after the model calls that log
// already holds.
func (p *Player) Resume(sessionID string, log *sessionlog.Log) error {
	return p.p.Resume(sessionID, log)
}

// Report is what the agent writes at exit with agentenv.WriteReport: per
// fixture, the calls served and left, and every error Stream raised. The
// harness fails a scenario with a call left or an error.
func (p *Player) Report() agentenv.Report { return p.p.Report() }

// RequestText renders a model request as the text {{fromRequest:<regex>}}
// placeholders are matched against (docs/format.md, "Request
// placeholders"): one compact JSON object with the members model, system,
// messages, tools and maxTokens, in that order.
func RequestText(req model.Request) []byte { return replay.RequestText(req) }
