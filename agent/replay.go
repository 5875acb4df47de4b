package agent

import (
	"context"

	"github.com/acpsnap/acpsnap/llmreplay"
	"github.com/acpsnap/acpsnap/model"
)

// Replay adapts an llmreplay Player to the model.Provider seam: it forwards the
// request's SessionID, SpawnedBy and Cwd (all the Player needs to pick and
// expand its script) and ignores the rest of the request.
func Replay(p *llmreplay.Player) model.Provider { return replay{p} }

type replay struct{ p *llmreplay.Player }

func (r replay) Stream(ctx context.Context, req model.Request, emit func(model.Chunk) error) error {
	return r.p.Stream(ctx, llmreplay.StreamRequest{SessionID: req.SessionID, SpawnedBy: req.SpawnedBy, Cwd: req.Cwd}, emit)
}
