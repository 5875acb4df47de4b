package agent

import (
	"context"

	"github.com/acpsnap/acpsnap/llmreplay"
	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// Replay adapts an llmreplay Player to the model.Provider seam: it forwards the
// request's SessionID, SpawnedBy and Cwd (what the Player needs to pick and
// expand its script) and the request rendered by llmreplay.RequestText (for
// {{fromRequest:…}} placeholders).
func Replay(p *llmreplay.Player) model.Provider { return replay{p} }

type replay struct{ p *llmreplay.Player }

// Resume positions the player after the model calls of a reopened
// session's log (Resumer).
func (r replay) Resume(sessionID string, l *sessionlog.Log) error { return r.p.Resume(sessionID, l) }

// Open binds a new top-level session to the player's next top-level
// fixture (Opener).
func (r replay) Open(sessionID string) { r.p.Open(sessionID) }

func (r replay) Stream(ctx context.Context, req model.Request, emit func(model.Chunk) error) error {
	return r.p.Stream(ctx, llmreplay.StreamRequest{SessionID: req.SessionID, SpawnedBy: req.SpawnedBy, Cwd: req.Cwd, Request: llmreplay.RequestText(req)}, emit)
}
