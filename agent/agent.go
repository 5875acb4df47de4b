package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	toolcassette "github.com/acpsnap/acpsnap/cassette/tool"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/cassette/subagent"
	"github.com/acpsnap/acpsnap/model"
)

// Config configures one agent process. model.Provider and SessionsDir are
// required; every other zero value picks the documented default.
type Config struct {
	// Provider is the model: live (record) or replaying. Required.
	Provider model.Provider
	// SessionsDir receives one log per session, at
	// SessionsDir/<session-id>/session.jsonl. Required.
	SessionsDir string
	// Permission is the initial permission mode of every session: "auto"
	// (never ask) or "ask" (writes and bash ask the client). "": "auto".
	Permission string
	// Model is the model name sent to the provider and logged in every
	// request/header event. "": none (the provider's default).
	Model string
	// MaxSteps bounds the model calls of one turn. 0: 25.
	MaxSteps int
	// BashTimeout bounds a bash command that does not ask for its own
	// timeoutMs. 0: 2 minutes.
	BashTimeout time.Duration
	// RetryDelay is the pause before the one retry of a RATE_LIMIT or
	// UNAVAILABLE model call; a cancel ends it early. 0: retry at once
	// (replay has nobody to wait for; the CLI sets 2s for live models).
	RetryDelay time.Duration
	// Now is the clock of the session logs. nil: time.Now.
	Now func() time.Time
	// NewID makes session, message and approval ids. nil: random UUIDv4.
	NewID func() string
	// Stderr receives diagnostics (never protocol). nil: io.Discard.
	Stderr io.Writer
	// Subagents is the subagent cassette task calls go through
	// (agent/boundary.go): a *subagent.Recorder runs each child without a
	// log of its own and records its outcome, a *subagent.Player replays
	// it without starting the child, its model or its log. The caller
	// closes it after Serve. nil: every child is a session with its own log.
	Subagents subagent.Boundary
	// Tools is the tool cassette the tools run through. nil: none.
	Tools *ToolCassette
	// Paths are the run's folders (tool.RunPaths): a task call's prompt
	// goes to Subagents, and its recorded answer or error comes back, with
	// them as tokens, expanded to today's folders, so a prompt or an
	// answer that holds the cwd replays in another run. nil: as given.
	Paths *toolcassette.Paths
}

// Defaults of Config's zero values.
const (
	DefaultMaxSteps    = 25
	DefaultBashTimeout = 2 * time.Minute
)

// Permission modes (Config.Permission and the ACP session modes).
const (
	PermissionAuto = "auto"
	PermissionAsk  = "ask"
)

func (c Config) withDefaults() (Config, error) {
	if c.Provider == nil {
		return c, errors.New("agent: config: model.Provider is required")
	}
	if c.SessionsDir == "" {
		return c, errors.New("agent: config: SessionsDir is required")
	}
	switch c.Permission {
	case "":
		c.Permission = PermissionAuto
	case PermissionAuto, PermissionAsk:
	default:
		return c, fmt.Errorf("agent: config: permission mode %q: want %q or %q", c.Permission, PermissionAuto, PermissionAsk)
	}
	if c.MaxSteps <= 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	if c.BashTimeout <= 0 {
		c.BashTimeout = DefaultBashTimeout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.NewID == nil {
		c.NewID = newUUID
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	return c, nil
}

// Serve speaks ACP over in (client to agent) and out (agent to client) until
// in reaches EOF or ctx is done. Then it cancels the turns still running
// (they end aborted{by:disposed}), waits for them, closes every session log
// and returns: nil after EOF, ctx.Err() after cancellation. (After
// cancellation the SDK's reader goroutine lives on until in is closed: an
// io.Reader cannot be interrupted.)
func Serve(ctx context.Context, cfg Config, in io.Reader, out io.Writer) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	cfg.Stderr = &syncWriter{w: cfg.Stderr}
	srv := newServer(ctx, cfg)
	// The connection starts reading at once; hold its first read until
	// the logger and srv.conn are set, so no handler sees them unset.
	ready := make(chan struct{})
	conn := acp.NewAgentSideConnection(srv, out, &gatedReader{r: in, open: ready})
	conn.SetLogger(slog.New(slog.NewTextHandler(cfg.Stderr, nil)))
	srv.conn = conn
	close(ready)
	select {
	case <-conn.Done():
		err = nil
	case <-ctx.Done():
		err = ctx.Err()
	}
	srv.shutdown()
	return err
}

// errUserCancel and errDisposed are the causes that end a turn early; the
// turn/end reason says which one ("user" or "disposed").
var (
	errUserCancel = errors.New("cancelled by the client")
	errDisposed   = errors.New("agent shutting down")
)

// server is the acp.Agent behind Serve: the registry of sessions and the
// client's capabilities.
type server struct {
	cfg  Config
	conn *acp.AgentSideConnection
	base context.Context // parent of every turn; cancelled by shutdown
	stop context.CancelCauseFunc

	mu          sync.Mutex
	caps        acp.ClientCapabilities
	sessions    map[string]*session // primary sessions, by id
	all         []*session          // every session, children included, to close
	closed      bool
	lastCreated int64
	turns       sync.WaitGroup
}

var _ acp.Agent = (*server)(nil)

func newServer(ctx context.Context, cfg Config) *server {
	base, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	return &server{cfg: cfg, base: base, stop: stop, sessions: map[string]*session{}}
}

// shutdown refuses new work, cancels running turns, waits for them and
// closes every log.
func (srv *server) shutdown() {
	srv.mu.Lock()
	srv.closed = true
	srv.mu.Unlock()
	srv.stop(errDisposed)
	srv.turns.Wait()
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for _, s := range srv.all {
		if err := closeMCP(s.mcp); err != nil {
			srv.diag("session %s: %v", s.id, err)
		}
		if err := s.log.Close(); err != nil {
			srv.diag("close log of session %s: %v", s.id, err)
		}
	}
}

// diag writes one diagnostic line to Config.Stderr.
func (srv *server) diag(format string, args ...any) {
	fmt.Fprintf(srv.cfg.Stderr, "agent: "+format+"\n", args...)
}

// Initialize advertises protocol v1, text prompts, and the session
// methods the agent serves: session/load, list, resume, fork and close.
func (srv *server) Initialize(ctx context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	srv.mu.Lock()
	srv.caps = p.ClientCapabilities
	srv.mu.Unlock()
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentCapabilities: acp.AgentCapabilities{LoadSession: true, SessionCapabilities: acp.SessionCapabilities{
			List: &acp.SessionListCapabilities{}, Resume: &acp.SessionResumeCapabilities{}, Fork: &acp.SessionForkCapabilities{}, Close: &acp.SessionCloseCapabilities{}}},
		AgentInfo:   &acp.Implementation{Name: "acpsnap-agent", Version: "1"},
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

// Authenticate accepts everything: the agent has no authentication.
func (srv *server) Authenticate(ctx context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

// NewSession validates the request and creates a primary session.
func (srv *server) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	if err := validateNewSession(p); err != nil {
		return acp.NewSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	s, err := srv.openPrimary(p.Cwd, p.McpServers, nil, nil)
	if err != nil {
		return acp.NewSessionResponse{}, err
	}
	if o, ok := srv.cfg.Provider.(Opener); ok {
		o.Open(s.id)
	}
	return acp.NewSessionResponse{SessionId: acp.SessionId(s.id), Modes: s.modeState()}, nil
}

// Prompt runs one turn of a primary session and maps its end to the ACP
// answer: a stop reason, or a JSON-RPC error for a failed turn.
func (srv *server) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	s := srv.primary(string(p.SessionId))
	if s == nil {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown session %q", p.SessionId)})
	}
	if !srv.beginTurn() {
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": "agent is shutting down"})
	}
	defer srv.turns.Done()
	// The turn's context is a child of the SDK's request context, so
	// session/cancel (cause context.Canceled) and a departed client (the
	// connection's cause) end it synchronously; shutdown ends it with
	// errDisposed.
	turnCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stopWatch := context.AfterFunc(srv.base, func() { cancel(errDisposed) })
	defer stopWatch()
	out := s.runTurn(turnCtx, cancel, p.Prompt)
	if out.err != nil {
		return acp.PromptResponse{}, out.err
	}
	return acp.PromptResponse{StopReason: out.stop}, nil
}

// beginTurn registers a running turn unless the server is shutting down.
func (srv *server) beginTurn() bool {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.closed {
		return false
	}
	srv.turns.Add(1)
	return true
}

// Cancel aborts the session's running turn, if any. (The SDK has already
// cancelled the prompt's context; this also covers a turn whose prompt
// context was replaced.)
func (srv *server) Cancel(ctx context.Context, p acp.CancelNotification) error {
	if s := srv.primary(string(p.SessionId)); s != nil {
		s.cancelTurn(errUserCancel)
	}
	return nil
}

// SetSessionMode switches a session between the "auto" and "ask"
// permission modes.
func (srv *server) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	s := srv.primary(string(p.SessionId))
	if s == nil {
		return acp.SetSessionModeResponse{}, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown session %q", p.SessionId)})
	}
	mode := string(p.ModeId)
	if mode != PermissionAuto && mode != PermissionAsk {
		return acp.SetSessionModeResponse{}, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("unknown mode %q (want %q or %q)", mode, PermissionAuto, PermissionAsk)})
	}
	s.setMode(mode)
	return acp.SetSessionModeResponse{}, nil
}

func (srv *server) primary(id string) *session {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.sessions[id]
}

func (srv *server) clientCaps() acp.ClientCapabilities {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	return srv.caps
}

// syncWriter serializes writes to Config.Stderr: the SDK's logger and the
// agent's diagnostics share it.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.w.Write(p)
}

// gatedReader blocks reads until open is closed.
type gatedReader struct {
	r    io.Reader
	open <-chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	<-g.open
	return g.r.Read(p)
}
