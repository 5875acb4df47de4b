package replay

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// Config says which fixtures a Player serves.
type Config struct {
	Primary  string   // path of the primary session's fixture (session.jsonl); required
	Children []string // paths of the child fixtures (session.N.jsonl); nil: none
	Override string   // path of replay.override.json; "": none
	// Logs are the contents of Primary, then of Children, when the caller
	// has read them already (the paths then only name them); nil: Load
	// reads the paths.
	Logs  [][]byte
	NewID func() string // live tool-call ids are "call_" + NewID(); nil: 16 random hex digits
}

// StreamRequest identifies the session a model call belongs to.
type StreamRequest struct {
	SessionID string // the live session id
	SpawnedBy string // the live id of the tool call that spawned the session; "": the primary session
	Cwd       string // the live cwd: expands {{cwd}}, and hang ready files are created in it
	// Request is the live request's text, which {{fromRequest:<regex>}}
	// placeholders are matched against: RequestText of the agent's
	// model.Request on the native path, the request body on the HTTP path.
	// nil: a chunk with a placeholder fails the call.
	Request []byte
}

// Player serves fixture scripts to the agent's replay provider, one
// positional cursor per session. It is safe for concurrent use.
type Player struct {
	newID func() string

	mu       sync.Mutex
	fixtures []*fixture          // the primary first, then the children in Config order
	sessions map[string]*binding // by live session id
	tokens   map[string]string   // "{{session:N}}", "{{toolCall:N}}" → live id
	calls    map[string]string   // live tool-call id → "{{toolCall:N}}"
	errs     []string
}

// fixture is one fixture's script and where serving it stands.
type fixture struct {
	name    string // base file name
	header  sessionlog.Header
	script  Script
	next    int    // the entry the next call gets
	session string // the live session bound to it; "": none yet
	top     bool   // a top-level session's: the primary, or a log without a parent
}

// binding is a live session and its fixture.
type binding struct {
	fx   *fixture
	busy bool // a stream is in flight
}

// Load derives the scripts of cfg's fixtures, applies the override to the
// primary one and returns a Player ready to serve them. An unterminated call
// in the primary fixture is accepted when the override replaces its entry.
func Load(cfg Config) (*Player, error) {
	if cfg.Primary == "" {
		return nil, errors.New("llmreplay: load: no primary fixture given")
	}
	if cfg.Logs != nil && len(cfg.Logs) != 1+len(cfg.Children) {
		return nil, fmt.Errorf("llmreplay: load: %d logs given for %d fixtures", len(cfg.Logs), 1+len(cfg.Children))
	}
	content := func(i int) []byte {
		if cfg.Logs == nil {
			return nil
		}
		return cfg.Logs[i]
	}
	primary, err := loadFixture(cfg.Primary, content(0))
	var u *UnterminatedError
	if err != nil && !errors.As(err, &u) {
		return nil, err
	}
	if err := overridePrimary(primary, cfg.Override, u); err != nil {
		return nil, err
	}
	primary.top = true
	p := &Player{newID: cfg.NewID, fixtures: []*fixture{primary},
		sessions: map[string]*binding{}, tokens: map[string]string{}, calls: map[string]string{}}
	if p.newID == nil {
		p.newID = randomID
	}
	spawners := map[string]string{}
	for i, path := range cfg.Children {
		fx, err := loadFixture(path, content(1+i))
		if errors.As(err, &u) {
			return nil, fmt.Errorf("llmreplay: load: an override can only replace calls of the primary session: %w", err)
		}
		if err != nil {
			return nil, err
		}
		if fx.header.SpawnedBy == "" && fx.header.ParentSession == "" {
			fx.top = true // another top-level session's log
			p.fixtures = append(p.fixtures, fx)
			continue
		}
		if fx.header.SpawnedBy == "" {
			return nil, fmt.Errorf("llmreplay: load: %s:1: child fixture without spawnedBy", path)
		}
		if other, dup := spawners[fx.header.SpawnedBy]; dup {
			return nil, fmt.Errorf("llmreplay: load: %s:1: spawnedBy %s is also the spawnedBy of %s", path, fx.header.SpawnedBy, other)
		}
		spawners[fx.header.SpawnedBy] = path
		p.fixtures = append(p.fixtures, fx)
	}
	return p, nil
}

// loadFixture reads (unless its content b is given) and derives one
// fixture. With an *UnterminatedError it returns the fixture too.
func loadFixture(path string, b []byte) (*fixture, error) {
	var l *sessionlog.Log
	var err error
	if b != nil {
		l, err = sessionlog.Read(bytes.NewReader(b), path)
	} else {
		l, err = sessionlog.ReadFile(path)
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("llmreplay: load: fixture %s does not exist; re-record the scenario", path)
	}
	if err != nil {
		return nil, fmt.Errorf("llmreplay: load: %w", err)
	}
	s, err := deriveLog(l)
	var u *UnterminatedError
	if err != nil && !errors.As(err, &u) {
		return nil, err
	}
	return &fixture{name: filepath.Base(path), header: l.Header, script: s}, err
}

// overridePrimary applies the override file (if any) to the primary
// fixture. It fails when an unterminated call is not replaced by it.
func overridePrimary(fx *fixture, path string, u *UnterminatedError) error {
	if path == "" {
		if u != nil {
			return u
		}
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("llmreplay: load: %w", err)
	}
	defer f.Close()
	o, err := DecodeOverride(f, path)
	if err != nil {
		return err
	}
	if u != nil {
		for _, i := range u.indexes() {
			if !o.replaces(i) {
				return fmt.Errorf("llmreplay: load: %s does not replace entry %d: %w", path, i, u)
			}
		}
	}
	fx.script, err = o.Apply(fx.script)
	return err
}

// randomID returns 16 random hex digits.
func randomID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Stream serves the next entry of req's session through emit: a chunks
// entry emits its chunks; a throw emits its prefix, then returns a
// *model.ProviderError; a hang emits a partial block-start, creates its ready file
// and returns ctx.Err() once ctx is done. Chunks are token-expanded (see
// doc.go). Replay failures are *model.ProviderError{Code: "REPLAY"} and also go to
// the Report.
func (p *Player) Stream(ctx context.Context, req StreamRequest, emit func(model.Chunk) error) error {
	e, err := p.take(req)
	if err != nil {
		return err
	}
	defer p.release(req.SessionID)
	for _, c := range e.Chunks {
		if err := emit(c); err != nil {
			return err
		}
	}
	switch e.Kind {
	case KindThrow:
		return &model.ProviderError{Code: e.Code, Message: e.Message}
	case KindHang:
		if err := emit(model.Chunk{Type: model.BlockStart, Index: 0, BlockType: model.BlockText}); err != nil {
			return err
		}
		if e.ReadyFile != "" {
			if err := createReady(req.Cwd, e.ReadyFile); err != nil {
				return fmt.Errorf("llmreplay: hang: create ready file: %w", err)
			}
		}
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

// take binds req's session on its first call, claims its next entry and
// returns it expanded.
func (p *Player) take(req StreamRequest) (Entry, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, ok := p.sessions[req.SessionID]
	if !ok {
		fx, err := p.bind(req)
		if err != nil {
			return Entry{}, err
		}
		p.bindTo(fx, req.SessionID)
		b = p.sessions[req.SessionID]
	}
	if b.busy {
		err := fmt.Errorf("llmreplay: session %s: a second model call while one is in flight; the agent must not overlap the calls of one session (a side call in parallel with the turn, a title or a summary, needs a session and a log of its own)", req.SessionID)
		p.errs = append(p.errs, err.Error())
		return Entry{}, err
	}
	fx := b.fx
	if fx.next >= len(fx.script) {
		return Entry{}, p.fail("script exhausted: %s has %d entries, model call %d of session %s was not recorded; re-record the scenario",
			fx.name, len(fx.script), fx.next+1, req.SessionID)
	}
	e, err := expandRequest(p.expand(fx.script[fx.next], req.Cwd), req.Request)
	if err != nil {
		return Entry{}, p.fail("%s: entry %d (model call %d of session %s): %v", fx.name, fx.next+1, fx.next+1, req.SessionID, err)
	}
	fx.next++
	b.busy = true
	return e, nil
}

// Resume binds a primary session the agent reopened from its log (after
// a restart) to the primary fixture, positioned after the model calls that
// log already holds: its next call gets the entry after them.
func (p *Player) Resume(sessionID string, l *sessionlog.Log) error {
	done, err := deriveLog(l)
	var u *UnterminatedError
	if err != nil && !errors.As(err, &u) {
		return fmt.Errorf("llmreplay: resume session %s: %w", sessionID, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fx := p.top(sessionID)
	if fx.session != "" && fx.session != sessionID {
		return p.fail("resume session %s: %s", sessionID, p.allServe())
	}
	if len(done) > len(fx.script) {
		return p.fail("resume session %s: its log holds %d model calls, the fixture %s only %d; re-record the scenario", sessionID, len(done), fx.name, len(fx.script))
	}
	p.bindTo(fx, sessionID)
	fx.next = len(done)
	return nil
}

// Open binds a top-level session the agent just created to the next
// top-level fixture not serving one, in creation order, as the harness
// orders the logs; one already bound, or one beyond the fixtures, is left
// alone (its first model call says what is wrong). An agent that does not
// call it gets its top-level sessions bound in the order of their first
// model calls.
func (p *Player) Open(sessionID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.sessions[sessionID]; ok {
		return
	}
	if fx := p.top(sessionID); fx.session == "" {
		p.bindTo(fx, sessionID)
	}
}

// top is the top-level fixture of sessionID: the one bound to it, else
// the first one free, else the last one (which then serves another
// session); p.mu is held.
func (p *Player) top(sessionID string) *fixture {
	var last *fixture
	for _, fx := range p.fixtures {
		if !fx.top {
			continue
		}
		if fx.session == "" || fx.session == sessionID {
			return fx
		}
		last = fx
	}
	return last
}

// allServe says that every top-level fixture serves a session already.
func (p *Player) allServe() string {
	var tops []string
	for _, fx := range p.fixtures {
		if fx.top {
			tops = append(tops, fx.name+" serves session "+fx.session)
		}
	}
	if len(tops) == 1 {
		return "the primary fixture " + p.fixtures[0].name + " already serves session " + p.fixtures[0].session
	}
	return "every top-level fixture serves a session already (" + strings.Join(tops, ", ") + ")"
}

// bindTo binds fixture fx to the live session id; p.mu is held.
func (p *Player) bindTo(fx *fixture, id string) {
	fx.session = id
	p.sessions[id] = &binding{fx: fx}
	if fx.header.ID != "" {
		p.tokens[fx.header.ID] = id
	}
}

// release ends the in-flight stream of a session.
func (p *Player) release(session string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.sessions[session].busy = false
}

// bind finds the fixture of a new session; p.mu is held.
func (p *Player) bind(req StreamRequest) (*fixture, error) {
	if req.SpawnedBy == "" {
		if fx := p.top(req.SessionID); fx.session == "" {
			return fx, nil
		}
		return nil, p.fail("unrecorded session %s: %s; re-record the scenario", req.SessionID, p.allServe())
	}
	token, ok := p.calls[req.SpawnedBy]
	if !ok {
		token = req.SpawnedBy // a fixture that kept a live id matches it verbatim
	}
	for _, fx := range p.fixtures[1:] {
		if fx.header.SpawnedBy != token {
			continue
		}
		if fx.session != "" {
			return nil, p.fail("unrecorded session %s: child fixture %s, spawned by %s, already serves session %s; re-record the scenario", req.SessionID, fx.name, token, fx.session)
		}
		return fx, nil
	}
	if !ok {
		return nil, p.fail("unrecorded session %s: spawned by tool call %s, which the replay never served; re-record the scenario", req.SessionID, req.SpawnedBy)
	}
	return nil, p.fail("missing child fixture: no child fixture was spawned by %s (live %s) for session %s; re-record the scenario", token, req.SpawnedBy, req.SessionID)
}

// fail records and returns a REPLAY error; p.mu is held.
func (p *Player) fail(format string, args ...any) *model.ProviderError {
	err := &model.ProviderError{Code: "REPLAY", Message: "llmreplay: " + fmt.Sprintf(format, args...)}
	p.errs = append(p.errs, err.Error())
	return err
}

// tokenRE matches the tokens served chunks may carry.
var tokenRE = regexp.MustCompile(`\{\{(?:cwd|cwdRel|session:[0-9]+|toolCall:[0-9]+)\}\}`)

// expand returns e with live values for its tokens; p.mu is held. A
// {{toolCall:N}} met for the first time gets a fresh live id.
func (p *Player) expand(e Entry, cwd string) Entry {
	repl := func(tok string) string {
		switch tok {
		case "{{cwd}}":
			return cwd
		case "{{cwdRel}}":
			return strings.TrimPrefix(cwd, "/")
		}
		if live, ok := p.tokens[tok]; ok {
			return live
		}
		if tok[2] == 's' { // a session not bound yet keeps its token
			return tok
		}
		live := "call_" + p.newID()
		p.tokens[tok], p.calls[live] = live, tok
		return live
	}
	return e.mapStrings(func(s string) string { return tokenRE.ReplaceAllStringFunc(s, repl) })
}

// Report returns, per fixture, the entries served and left, and every
// error Stream raised.
func (p *Player) Report() agentenv.Report {
	p.mu.Lock()
	defer p.mu.Unlock()
	var r agentenv.Report
	for _, fx := range p.fixtures {
		r.Fixtures = append(r.Fixtures, agentenv.FixtureReport{Fixture: fx.name, Served: fx.next, Left: len(fx.script) - fx.next})
	}
	r.Errors = append([]string(nil), p.errs...)
	return r
}
