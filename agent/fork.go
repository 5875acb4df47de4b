package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"

	acp "github.com/coder/acp-go-sdk"
)

// UnstableForkSession serves session/fork: a new primary session with a
// new id and a log of its own that starts as a copy of the parent's
// events, so its model history is the parent's (restored without
// replaying it to the client) and loading the fork later restores it as
// well. The parent, open or on disk, stays as it is.
func (srv *server) UnstableForkSession(ctx context.Context, p acp.UnstableForkSessionRequest) (acp.UnstableForkSessionResponse, error) {
	var mcp []acp.McpServer
	if len(p.McpServers) > 0 {
		b, err := json.Marshal(p.McpServers)
		if err == nil {
			err = json.Unmarshal(b, &mcp)
		}
		if err != nil {
			return acp.UnstableForkSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": "mcpServers: " + err.Error()})
		}
	}
	req := acp.LoadSessionRequest{SessionId: p.SessionId, Cwd: p.Cwd, McpServers: mcp, AdditionalDirectories: p.AdditionalDirectories}
	parent, err := srv.primaryLog(req, true)
	if err != nil {
		return acp.UnstableForkSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s, err := srv.openPrimary(p.Cwd, mcp, nil, nil)
	if err != nil {
		return acp.UnstableForkSessionResponse{}, err
	}
	for _, e := range parent.Events {
		s.event(e.Type, e.Data)
	}
	// The fork is bound to its own fixture, in creation order like a new
	// session, and positioned after the model calls it copied.
	if o, ok := srv.cfg.Provider.(Opener); ok {
		o.Open(s.id)
	}
	if r, ok := srv.cfg.Provider.(Resumer); ok {
		if err := r.Resume(s.id, parent); err != nil {
			// A fork that cannot be served leaves nothing: not an open
			// session, not its MCP servers, not a log a later list shows.
			srv.diag("session %s: %v", s.id, err)
			srv.CloseSession(ctx, acp.CloseSessionRequest{SessionId: acp.SessionId(s.id)})
			if rerr := os.RemoveAll(filepath.Join(srv.cfg.SessionsDir, s.id)); rerr != nil {
				srv.diag("session %s: %v", s.id, rerr)
			}
			return acp.UnstableForkSessionResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
		}
	}
	s.restore(parent, false)
	return acp.UnstableForkSessionResponse{SessionId: acp.SessionId(s.id), Modes: s.modeState()}, nil
}
