package agent

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// session is one conversation with its own log: a primary session the
// client created, or a subagent child spawned by a task tool call.
type session struct {
	srv       *server
	id        string
	cwd       string
	primary   bool // talks to the client: notifications, client fs/terminal, permissions
	spawnedBy string
	depth     int
	key       string             // behind a subagent boundary: the call's topology path ("": the root)
	log       *sessionlog.Writer // nil: a detached child (its cassette is its record)
	path      string             // its tool calls' structural path: "root", the parent's + "/task-N"; "": a detached child (no tool cassette)
	spawned   int                // task children created so far (guarded by srv.mu)
	mcp       []*mcpServer       // closed with the log
	tools     []*tool
	system    string

	mu         sync.Mutex // guards mode, model, remembered, cancel
	mode       string
	model      string          // from session/set_model; "": Config.Model
	remembered map[string]bool // tool name → allowed, from allow_always / reject_always
	cancel     context.CancelCauseFunc

	turnMu  sync.Mutex // serializes turns; guards history and turns
	history []model.Message
	turns   int
}

// sessionSpec says what kind of session createSession makes.
type sessionSpec struct {
	cwd       string
	primary   bool
	parent    *session // children only
	spawnedBy string   // children only: the task tool-call id
	depth     int
	detached  bool         // children behind a subagent boundary: no log, not closed by shutdown
	key       string       // with detached: the call's topology path
	mcp       []*mcpServer // primary only: its MCP servers, whose tools follow the built-in ones
	mcpTools  []*tool
	loaded    *sessionlog.Log // primary only: the log of a session loaded from disk (its id, reopened for appending)
}

// validateNewSession rejects what this agent cannot honour, with a message
// that says what to change.
func validateNewSession(p acp.NewSessionRequest) error {
	if !filepath.IsAbs(p.Cwd) {
		return fmt.Errorf("cwd must be an absolute path, got %q", p.Cwd)
	}
	if fi, err := os.Stat(p.Cwd); err != nil || !fi.IsDir() {
		return fmt.Errorf("cwd %q is not an existing directory", p.Cwd)
	}
	if err := validateMCP(p.McpServers); err != nil {
		return err
	}
	if len(p.AdditionalDirectories) > 0 {
		return fmt.Errorf("additionalDirectories are not supported (got %d)", len(p.AdditionalDirectories))
	}
	return nil
}

// openPrimary starts the MCP servers of a primary session, then runs
// before (nil: nothing; reopen resumes the provider there), then creates
// the session in cwd, loaded from l when l is set. A step that fails
// closes the MCP servers already started; the error is the ACP one to
// answer with.
func (srv *server) openPrimary(cwd string, mcp []acp.McpServer, l *sessionlog.Log, before func() error) (*session, error) {
	servers, tools, err := srv.startMCP(mcp)
	if err != nil {
		srv.diag("%v", err)
		return nil, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	if before != nil {
		if err := before(); err != nil {
			closeMCP(servers)
			return nil, acp.NewInternalError(map[string]any{"error": err.Error()})
		}
	}
	s, err := srv.createSession(sessionSpec{cwd: cwd, primary: true, mcp: servers, mcpTools: tools, loaded: l})
	if err != nil {
		closeMCP(servers)
		srv.diag("%v", err)
		return nil, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	return s, nil
}

// createSession makes a session and its log (a detached child has none).
// createdAt is strictly
// increasing across the sessions of one server, so ordering logs by
// createdAt is deterministic.
func (srv *server) createSession(spec sessionSpec) (*session, error) {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.closed {
		return nil, errors.New("agent: create session: agent is shutting down")
	}
	id := srv.cfg.NewID()
	if spec.loaded != nil {
		id = spec.loaded.Header.ID
	}
	s := &session{
		srv: srv, id: id, cwd: filepath.Clean(spec.cwd), primary: spec.primary,
		spawnedBy: spec.spawnedBy, depth: spec.depth, key: spec.key, mode: srv.cfg.Permission, remembered: map[string]bool{},
	}
	s.tools, s.system, s.path, s.mcp = primaryTools, systemPrompt(s.cwd), "root", spec.mcp
	if len(spec.mcpTools) > 0 {
		s.tools = append(append([]*tool(nil), primaryTools...), spec.mcpTools...)
	}
	if spec.detached {
		s.tools, s.system, s.path = childTools, childSystemPrompt(s.cwd), ""
		return s, nil
	}
	h := sessionlog.Header{ID: s.id, CreatedAt: srv.nextCreatedAt(), Cwd: s.cwd, DelegationDepth: spec.depth}
	if spec.parent != nil {
		s.tools, s.system = childTools, childSystemPrompt(s.cwd)
		spec.parent.spawned++
		s.path = spec.parent.path + "/task-" + strconv.Itoa(spec.parent.spawned)
		h.ParentSession, h.Origin, h.SpawnedBy = spec.parent.id, "subagent", spec.spawnedBy
	}
	path := filepath.Join(srv.cfg.SessionsDir, s.id, sessionlog.FileName)
	var w *sessionlog.Writer
	var err error
	if spec.loaded != nil {
		w, err = sessionlog.Reopen(path, spec.loaded, srv.cfg.Now)
	} else {
		w, err = sessionlog.Create(path, h, srv.cfg.Now)
	}
	if err != nil {
		return nil, fmt.Errorf("agent: create session log: %w", err)
	}
	s.log = w
	srv.all = append(srv.all, s)
	if spec.primary {
		srv.sessions[s.id] = s
	}
	return s, nil
}

// nextCreatedAt returns the clock in unix milliseconds, bumped past the
// previous value on a tie. Callers hold srv.mu.
func (srv *server) nextCreatedAt() int64 {
	t := srv.cfg.Now().UnixMilli()
	if t <= srv.lastCreated {
		t = srv.lastCreated + 1
	}
	srv.lastCreated = t
	return t
}

// event appends one event to the session log. A failed write is reported
// on Stderr and does not stop the turn: the log is evidence, not control.
func (s *session) event(typ string, data any) {
	if s.log == nil {
		return
	}
	if err := s.log.Append(typ, data); err != nil {
		s.srv.diag("session %s: %v", s.id, err)
	}
}

// notify sends one session/update to the client. Children never notify.
// The send ignores cancellation so a cancelled turn can still close its
// tool calls before the prompt answers.
func (s *session) notify(u acp.SessionUpdate) {
	if !s.primary {
		return
	}
	err := s.srv.conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: acp.SessionId(s.id), Update: u})
	if err != nil {
		s.srv.diag("session %s: session/update: %v", s.id, err)
	}
}

func (s *session) modeState() *acp.SessionModeState {
	return &acp.SessionModeState{
		CurrentModeId: acp.SessionModeId(s.permissionMode()),
		AvailableModes: []acp.SessionMode{
			{Id: PermissionAuto, Name: "Auto", Description: acp.Ptr("Run every tool without asking")},
			{Id: PermissionAsk, Name: "Ask", Description: acp.Ptr("Ask before writing files or running commands")},
		},
	}
}

func (s *session) permissionMode() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

func (s *session) setMode(mode string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = mode
}

// decision returns the remembered allow_always/reject_always answer for a
// tool, if any.
func (s *session) decision(tool string) (allowed, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	allowed, ok = s.remembered[tool]
	return allowed, ok
}

func (s *session) remember(tool string, allowed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.remembered[tool] = allowed
}

// setCancel installs the cancel function of the running turn (nil when
// none runs).
func (s *session) setCancel(cancel context.CancelCauseFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancel = cancel
}

func (s *session) cancelTurn(cause error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel(cause)
	}
}

// clientFS reports whether file tools go through the client: never for a
// child, nor for a tool the tool cassette selects.
func (t *turn) clientFS() (read, write bool) {
	s := t.s
	if !s.primary || t.local {
		return false, false
	}
	c := s.srv.clientCaps()
	return c.Fs.ReadTextFile, c.Fs.WriteTextFile
}

// clientTerminal reports whether bash runs in a client terminal.
func (t *turn) clientTerminal() bool {
	return t.s.primary && !t.local && t.s.srv.clientCaps().Terminal
}

// resolve turns a tool's path argument into an absolute path inside the
// session's cwd: ".." may not climb out of it, and neither may a symbolic
// link anywhere on the path, dangling ones included (writing through a
// dangling link would create its target).
func (s *session) resolve(p string) (string, error) {
	if p == "" {
		return "", errors.New("path is required")
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(s.cwd, abs)
	}
	abs = filepath.Clean(abs)
	if !safefile.Confined(s.cwd, abs) {
		return "", fmt.Errorf("path %q is outside the working directory", p)
	}
	return abs, nil
}

// display is the cwd-relative spelling of an absolute path inside the cwd.
func (s *session) display(abs string) string {
	rel, err := filepath.Rel(s.cwd, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

// newUUID returns a random RFC 4122 version 4 UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}
