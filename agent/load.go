package agent

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// Resumer is a model.Provider that keeps state per session (the replay
// provider's position in its script): LoadSession hands it the log of the
// session it reopens, so the session's next model call continues where
// the log ends.
type Resumer interface {
	Resume(sessionID string, log *sessionlog.Log) error
}

// Opener is a model.Provider that keeps state per top-level session (the
// replay provider's fixture of each): NewSession hands it every new
// session's id, so sessions are bound in creation order, the order of
// their logs.
type Opener interface {
	Open(sessionID string)
}

// LoadSession reopens a primary session of SessionsDir from its log (also
// after a restart of the agent): it replays the conversation to the client
// as session/update notifications (user and agent messages, thoughts, tool
// calls with their results), restores the model history, and appends the
// session's next turns to the same log. The session starts in the
// configured permission mode.
func (srv *server) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	s, err := srv.reopen(p, true)
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	return acp.LoadSessionResponse{Modes: s.modeState()}, nil
}

// reopen is LoadSession and ResumeSession: the session p names, opened
// again from its log, replaying it to the client when replay is set.
func (srv *server) reopen(p acp.LoadSessionRequest, replay bool) (*session, error) {
	l, err := srv.loadable(p)
	if err != nil {
		return nil, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	var resume func() error
	if r, ok := srv.cfg.Provider.(Resumer); ok {
		resume = func() error { return r.Resume(l.Header.ID, l) }
	}
	s, err := srv.openPrimary(p.Cwd, p.McpServers, l, resume)
	if err != nil {
		return nil, err
	}
	s.restore(l, replay)
	return s, nil
}

// ResumeSession reopens a session like LoadSession, without replaying the
// conversation to the client.
func (srv *server) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	s, err := srv.reopen(acp.LoadSessionRequest{SessionId: p.SessionId, Cwd: p.Cwd, McpServers: p.McpServers, AdditionalDirectories: p.AdditionalDirectories}, false)
	if err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	return acp.ResumeSessionResponse{Modes: s.modeState()}, nil
}

// CloseSession ends an open primary session: its running turn is
// cancelled and waited for, its MCP servers stopped and its log closed.
// It can be loaded again.
func (srv *server) CloseSession(ctx context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	srv.mu.Lock()
	s := srv.sessions[string(p.SessionId)]
	if s != nil {
		delete(srv.sessions, s.id)
		srv.all = slices.DeleteFunc(srv.all, func(o *session) bool { return o == s })
	}
	srv.mu.Unlock()
	if s == nil {
		return acp.CloseSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown session %q", p.SessionId)})
	}
	s.cancelTurn(errUserCancel)
	s.turnMu.Lock()
	defer s.turnMu.Unlock()
	if err := closeMCP(s.mcp); err != nil {
		srv.diag("session %s: %v", s.id, err)
	}
	if err := s.log.Close(); err != nil {
		srv.diag("close log of session %s: %v", s.id, err)
	}
	return acp.CloseSessionResponse{}, nil
}

// loadable reads the log of the session p names and checks it may be
// loaded: a primary session of p's cwd that is not open.
func (srv *server) loadable(p acp.LoadSessionRequest) (*sessionlog.Log, error) {
	return srv.primaryLog(p, false)
}

// primaryLog reads the log of the primary session of p's cwd that p
// names. An open session is refused unless fork is set; then its running
// turn is waited for, so the log read ends at a turn boundary.
func (srv *server) primaryLog(p acp.LoadSessionRequest, fork bool) (*sessionlog.Log, error) {
	if err := validateNewSession(acp.NewSessionRequest{Cwd: p.Cwd, McpServers: p.McpServers, AdditionalDirectories: p.AdditionalDirectories}); err != nil {
		return nil, err
	}
	id := string(p.SessionId)
	if id == "" || !filepath.IsLocal(id) || strings.ContainsRune(id, filepath.Separator) {
		return nil, fmt.Errorf("unknown session %q", id)
	}
	if open := srv.primary(id); open != nil {
		if !fork {
			return nil, fmt.Errorf("session %s is open already", id)
		}
		open.turnMu.Lock()
		defer open.turnMu.Unlock()
	}
	l, err := sessionlog.ReadFile(filepath.Join(srv.cfg.SessionsDir, id, sessionlog.FileName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("unknown session %q", id)
	}
	if err != nil {
		return nil, err
	}
	if l.Header.ParentSession != "" {
		return nil, fmt.Errorf("session %s is a subagent session", id)
	}
	if l.Header.Cwd != filepath.Clean(p.Cwd) {
		return nil, fmt.Errorf("session %s belongs to cwd %s, not %s", id, l.Header.Cwd, p.Cwd)
	}
	return l, nil
}

// restore rebuilds the model history and turn count from the log and,
// with replay, replays the conversation to the client; a line of an
// unknown shape is skipped with a diagnostic.
func (s *session) restore(l *sessionlog.Log, replay bool) {
	s.turnMu.Lock()
	defer s.turnMu.Unlock()
	t := &turn{s: s}
	notify := s.notify
	if !replay {
		notify = func(acp.SessionUpdate) {}
	}
	for _, e := range l.Events {
		if err := s.restoreEvent(t, e, notify); err != nil {
			s.srv.diag("session %s: load %s:%d: %v", s.id, l.Name, e.Line, err)
		}
	}
}

// restoreEvent is one event of restore: a dispatch switch over its type.
func (s *session) restoreEvent(t *turn, e sessionlog.Event, notify func(acp.SessionUpdate)) error {
	switch e.Type {
	case evTurnStart:
		var d turnData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return err
		}
		s.turns = max(s.turns, d.Turn)
	case evUserMessage:
		var d userMessageData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return err
		}
		s.history = append(s.history, model.Message{Role: "user", Content: promptText(d.Content)})
		for _, b := range d.Content {
			notify(acp.UpdateUserMessage(b))
		}
	case evAssistantMessage:
		var d assistantMessageData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return err
		}
		s.history = append(s.history, model.Message{Role: "assistant", Content: d.Text, Reasoning: d.Reasoning, ToolCalls: d.ToolCalls})
		if d.Reasoning != "" {
			notify(acp.UpdateAgentThoughtText(d.Reasoning))
		}
		if d.Text != "" {
			notify(acp.UpdateAgentMessageText(d.Text))
		}
	case evToolCall:
		var d toolCallData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return err
		}
		notify(t.startUpdate(model.ToolCall{ID: d.CallID, Name: d.Name, Arguments: d.Arguments}))
	case evToolResult:
		var d toolResultData
		if err := json.Unmarshal(e.Data, &d); err != nil {
			return err
		}
		s.history = append(s.history, model.Message{Role: "tool", ToolCallID: d.CallID, Content: d.Content})
		notify(toolDone(d.CallID, d.Content, d.Error))
	}
	return nil
}

// ListSessions lists the primary sessions of SessionsDir (of one cwd when
// p.Cwd is set), oldest first: each with its cwd, its first prompt as the
// title and the time of its last event.
func (srv *server) ListSessions(ctx context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	dirs, err := os.ReadDir(srv.cfg.SessionsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return acp.ListSessionsResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	type listed struct {
		info    acp.SessionInfo
		created int64
	}
	var all []listed
	for _, d := range dirs {
		l, err := sessionlog.ReadFile(filepath.Join(srv.cfg.SessionsDir, d.Name(), sessionlog.FileName))
		if err != nil || l.Header.ParentSession != "" || (p.Cwd != nil && filepath.Clean(*p.Cwd) != l.Header.Cwd) {
			continue
		}
		all = append(all, listed{sessionInfo(l), l.Header.CreatedAt})
	}
	slices.SortFunc(all, func(a, b listed) int {
		return cmp.Or(cmp.Compare(a.created, b.created), strings.Compare(string(a.info.SessionId), string(b.info.SessionId)))
	})
	out := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	for _, s := range all {
		out.Sessions = append(out.Sessions, s.info)
	}
	return out, nil
}

// titleMax bounds a listed session's title, in runes.
const titleMax = 80

// sessionInfo is how ListSessions shows one session log.
func sessionInfo(l *sessionlog.Log) acp.SessionInfo {
	info := acp.SessionInfo{SessionId: acp.SessionId(l.Header.ID), Cwd: l.Header.Cwd}
	updated := l.Header.CreatedAt
	for _, e := range l.Events {
		updated = max(updated, e.Time)
		var d userMessageData
		if info.Title == nil && e.Type == evUserMessage && json.Unmarshal(e.Data, &d) == nil {
			title := []rune(strings.Join(strings.Fields(promptText(d.Content)), " "))
			if len(title) > titleMax {
				title = append(title[:titleMax-1], '…')
			}
			info.Title = acp.Ptr(string(title))
		}
	}
	info.UpdatedAt = acp.Ptr(time.UnixMilli(updated).UTC().Format("2006-01-02T15:04:05.000Z"))
	return info
}
