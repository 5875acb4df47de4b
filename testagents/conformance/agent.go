package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"time"

	acp "github.com/coder/acp-go-sdk"
)

// Env selects the agent: a test binary whose TestMain calls Main becomes
// the agent when Env is "1" in its environment.
const Env = "CONFORMANCE_AGENT"

// Behaviour is what one run of the agent does, from its environment (the
// corpus's agent.env and the scenario's manifest env).
type Behaviour struct {
	Dialect string // CONF_DIALECT: a dialect of the table (internal/wire/dialect)
	URL     string // CONF_URL: the model's base URL ({{model.url}})
	// Key is the key the agent sends ({{model.key}}): in the dialect's
	// header, and for Gemini in the query, "?key=…", as its REST docs
	// show; "": none.
	Key string // CONF_KEY
	// IDs is "reuse" (""): a tool call's ACP toolCallId is the model's
	// tool-call id, as most agents do; "mint": a fresh random id.
	IDs string // CONF_IDS
	// Paths spells a tool call's path in its title and result: "abs" (""),
	// "rel" (relative to the cwd) or "root" (relative to "/").
	Paths string // CONF_PATHS
	// Ready sends an available_commands_update on a timer after
	// session/new ("1").
	Ready      bool          // CONF_READY
	ReadyAfter time.Duration // CONF_READY_MS; 0: 30 ms
	// Side makes a second model call (a title) in parallel with each
	// turn: "1" starts it just after the turn's first call, as title
	// generators do (the two race); "first" starts the turn's first call
	// only once the server has answered the title's headers, so the side
	// call always arrives first; "last" the other way round; "": none.
	Side string // CONF_SIDE
	// RequestID gives every chat-completions request a fresh UUID of its
	// own ("user"), as SDKs that send a request id do ("1").
	RequestID bool // CONF_REQUEST_ID
	// Noise ends every turn with a random word: an agent whose output no
	// normalization can make stable ("1"), which no fixture can hold.
	Noise bool // CONF_NOISE
	// SlowExit, at stdin EOF, starts a child process and waits this long
	// before exiting; the child exits on its own SlowChild after that.
	SlowExit time.Duration // CONF_SLOW_EXIT_MS
	// SlowChild is how long the child of SlowExit outlives the agent;
	// "": 800 ms. Over 500 ms is longer than the harness once let a group
	// take to empty.
	SlowChild time.Duration // CONF_SLOW_CHILD_MS
	// SlowText waits this long before it shows a turn's first text, as a
	// loaded machine may; a text it would show once the turn is cancelled
	// is dropped, as agents do.
	SlowText time.Duration // CONF_SLOW_TEXT_MS
	// Break breaks a rule of the protocol: "cancel-end-turn" answers a
	// cancelled prompt with stopReason end_turn (an SDK whose stream ends
	// quietly on abort), "unannounced" updates a tool call it never
	// announced (no tool_call before the tool_call_update); "": none.
	Break string // CONF_BREAK
	// System is the system prompt of the agent's turns; "": "You are the
	// conformance agent." (the corpus's pin).
	System string // CONF_SYSTEM
	// Thought starts every turn with an agent_thought_chunk of this text,
	// as an agent that shows its thinking does; "": none.
	Thought string // CONF_THOUGHT
	// Trace gives every chat-completions request a trace id of its own in
	// metadata.trace_id, the time it was sent in nanoseconds, as SDKs with
	// tracing do ("1"): a value no normalization knows.
	Trace bool // CONF_TRACE
}

func behaviour(getenv func(string) string) Behaviour {
	b := Behaviour{Dialect: getenv("CONF_DIALECT"), URL: getenv("CONF_URL"), Key: getenv("CONF_KEY"), IDs: getenv("CONF_IDS"),
		Paths: getenv("CONF_PATHS"), Ready: getenv("CONF_READY") == "1", Side: getenv("CONF_SIDE"), Noise: getenv("CONF_NOISE") == "1",
		RequestID: getenv("CONF_REQUEST_ID") == "1", Break: getenv("CONF_BREAK"), System: getenv("CONF_SYSTEM"), Thought: getenv("CONF_THOUGHT"), Trace: getenv("CONF_TRACE") == "1"}
	if b.System == "" {
		b.System = "You are the conformance agent."
	}
	b.SlowExit = millis(getenv("CONF_SLOW_EXIT_MS"), 0)
	b.SlowChild = millis(getenv("CONF_SLOW_CHILD_MS"), 800*time.Millisecond)
	b.SlowText = millis(getenv("CONF_SLOW_TEXT_MS"), 0)
	b.ReadyAfter = millis(getenv("CONF_READY_MS"), 30*time.Millisecond)
	return b
}

// millis reads a count of milliseconds; "" or nonsense: def.
func millis(s string, def time.Duration) time.Duration {
	var ms int
	if _, err := fmt.Sscan(s, &ms); err != nil {
		return def
	}
	return time.Duration(ms) * time.Millisecond
}

// Main runs the agent on stdio and exits when Env is set; otherwise it
// returns at once.
func Main() {
	if os.Getenv(Env) != "1" {
		return
	}
	b := behaviour(os.Getenv)
	err := Serve(context.Background(), b, os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "conformance agent:", err)
		os.Exit(1)
	}
	if b.SlowExit > 0 {
		// A child that outlives the agent's last word by a moment, as an
		// npm launcher's child does while it cleans up.
		exec.Command("sleep", fmt.Sprintf("%.3f", (b.SlowExit+b.SlowChild).Seconds())).Start()
		time.Sleep(b.SlowExit)
	}
	os.Exit(0)
}

// Serve speaks ACP on in and out until in ends. A dialect it cannot speak
// is an error before it reads anything.
func Serve(ctx context.Context, b Behaviour, in io.Reader, out io.Writer) error {
	w, err := speak(b.Dialect)
	if err != nil {
		return err
	}
	a := &agent{b: b, wire: w, sessions: map[string]*session{}, answered: map[string]func(){}}
	// The connection reads requests as soon as it exists: a.conn is set
	// under a.mu before the first handler can ask for it.
	a.mu.Lock()
	conn := acp.NewAgentSideConnection(a, &answerWatch{a: a, w: out}, in)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	a.conn = conn
	a.mu.Unlock()
	<-conn.Done()
	return nil
}

type agent struct {
	b    Behaviour
	wire wireOf

	mu       sync.Mutex
	conn     *acp.AgentSideConnection // set once, under mu, by Serve
	sessions map[string]*session
	lastMs   int64 // the time of the last id minted, under mu
	// answered are what to do once session/new's answer naming a session
	// is written, by session id, under mu.
	answered map[string]func()
}

// answerWatch is the agent's stdout: after it writes the answer that names
// a new session, it runs what waits for that (the ready timer), so no
// update can name the session before the client knows it.
type answerWatch struct {
	a *agent
	w io.Writer
}

func (w *answerWatch) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.a.mu.Lock()
	var run []func()
	for id, f := range w.a.answered {
		if bytes.Contains(p, []byte(`"result":`)) && bytes.Contains(p, []byte(`"sessionId":"`+id+`"`)) && !bytes.Contains(p, []byte(`"method":`)) {
			run = append(run, f)
			delete(w.a.answered, id)
		}
	}
	w.a.mu.Unlock()
	for _, f := range run {
		f()
	}
	return n, err
}

// mintMs is the Unix time in milliseconds for a minted tool-call id,
// later than the last one's: two model answers a millisecond apart would
// otherwise mint one id twice (gemini-cli's answers are further apart).
func (a *agent) mintMs() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lastMs = max(time.Now().UnixMilli(), a.lastMs+1)
	return a.lastMs
}

// session is one ACP session: its cwd and the conversation so far.
type session struct {
	id     string
	cwd    string
	mu     sync.Mutex
	msgs   []message
	cancel context.CancelFunc
}

// message is one conversation item, dialect-neutral.
type message struct {
	role    string // user, assistant, tool
	text    string
	calls   []toolCall // assistant
	callID  string     // tool
	isError bool
}

type toolCall struct{ id, name, args string }

var _ acp.Agent = (*agent)(nil)

func (a *agent) Initialize(ctx context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	return acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersionNumber,
		AgentInfo: &acp.Implementation{Name: "conformance", Version: "1"}, AuthMethods: []acp.AuthMethod{}}, nil
}

func (a *agent) Authenticate(ctx context.Context, p acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	return acp.AuthenticateResponse{}, nil
}

func (a *agent) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	s := &session{id: "sess_" + randomHex(8), cwd: p.Cwd}
	a.mu.Lock()
	a.sessions[s.id] = s
	if a.b.Ready {
		a.answered[s.id] = func() {
			time.AfterFunc(a.b.ReadyAfter, func() {
				a.update(s, acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{
					AvailableCommands: []acp.AvailableCommand{{Name: "title", Description: "name the session"}}}})
			})
		}
	}
	a.mu.Unlock()
	return acp.NewSessionResponse{SessionId: acp.SessionId(s.id)}, nil
}

func (a *agent) Cancel(ctx context.Context, p acp.CancelNotification) error {
	if s := a.session(string(p.SessionId)); s != nil {
		s.mu.Lock()
		if s.cancel != nil {
			s.cancel()
		}
		s.mu.Unlock()
	}
	return nil
}

func (a *agent) session(id string) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

func (a *agent) update(s *session, u acp.SessionUpdate) {
	a.mu.Lock()
	conn := a.conn
	a.mu.Unlock()
	conn.SessionUpdate(context.Background(), acp.SessionNotification{SessionId: acp.SessionId(s.id), Update: u})
}

// Prompt runs one turn: model calls until the model stops, each tool call
// run and answered.
func (a *agent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	s := a.session(string(p.SessionId))
	if s == nil {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": "unknown session"})
	}
	var text strings.Builder
	for _, c := range p.Prompt {
		if c.Text != nil {
			text.WriteString(c.Text.Text)
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.cancel = cancel
	s.msgs = append(s.msgs, message{role: "user", text: text.String()})
	s.mu.Unlock()
	var side sync.WaitGroup
	titled, turned := newSignal(), newSignal() // the title's, the turn's first call answered
	defer turned.fire()
	if a.b.Side != "" {
		side.Add(1)
		go func() {
			defer side.Done()
			switch a.b.Side {
			case "first":
			case "last":
				titled.fire()
				select {
				case <-turned.c:
				case <-ctx.Done():
				}
			default:
				titled.fire()
				time.Sleep(20 * time.Millisecond) // after the turn's first call, as title generators do
			}
			a.title(ctx, s, text.String(), titled.fire)
		}()
		<-titled.c
	}
	defer side.Wait()
	if a.b.Thought != "" {
		a.update(s, acp.UpdateAgentThoughtText(a.b.Thought))
	}
	retried := false
	for step := 0; step < 8; step++ {
		reply, err := a.callThen(ctx, s.conversation(a.b.System), s, turned.fire)
		turned.fire()
		if ctx.Err() != nil && a.b.Break == "cancel-end-turn" {
			return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
		}
		if ctx.Err() != nil {
			return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
		}
		if err != nil {
			// The error as the model's server wrote it, body verbatim.
			a.update(s, acp.UpdateAgentMessageText("model error: "+err.Error()))
			if he, ok := err.(*httpError); ok && he.status == http.StatusTooManyRequests && !retried {
				retried = true // one retry, as SDKs do
				continue
			}
			return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
		}
		ms := a.mintMs()
		for i := range reply.calls {
			if reply.calls[i].id == "" { // gemini sends none: mint one, as gemini-cli does
				reply.calls[i].id = fmt.Sprintf("%s_%d_%d", reply.calls[i].name, ms, i)
			}
		}
		s.mu.Lock()
		s.msgs = append(s.msgs, message{role: "assistant", text: reply.text, calls: reply.calls})
		s.mu.Unlock()
		if len(reply.calls) == 0 {
			if a.b.Noise {
				a.update(s, acp.UpdateAgentMessageText(" "+randomHex(4)))
			}
			return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
		}
		for _, c := range reply.calls {
			a.runTool(s, c)
		}
	}
	return acp.PromptResponse{StopReason: acp.StopReasonMaxTurnRequests}, nil
}

// signal is a one-shot event: fire closes c, once.
type signal struct {
	c    chan struct{}
	once sync.Once
}

func newSignal() *signal { return &signal{c: make(chan struct{})} }

func (s *signal) fire() { s.once.Do(func() { close(s.c) }) }

// title is the side call: a conversation of its own, answered in
// parallel with the turn; its answer is shown as a session title. It
// calls headers once the server answered the call's headers, or the call
// failed.
func (a *agent) title(ctx context.Context, s *session, prompt string, headers func()) {
	conv := []message{{role: "user", text: "Title this conversation: " + prompt}}
	defer headers()
	reply, err := a.callThen(ctx, conv, nil, headers)
	if err == nil {
		a.update(s, acp.SessionUpdate{SessionInfoUpdate: &acp.SessionSessionInfoUpdate{Title: acp.Ptr(reply.text)}})
	}
}

func (s *session) conversation(system string) []message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]message{{role: "system", text: system}}, s.msgs...)
}

// runTool runs one tool call (read: a file's content) and reports it on
// ACP with the spelling of its path the behaviour asks for.
func (a *agent) runTool(s *session, c toolCall) {
	id := c.id
	if a.b.IDs == "mint" {
		id = "tc_" + randomHex(6)
	}
	var args struct {
		Path string `json:"path"`
	}
	json.Unmarshal([]byte(c.args), &args)
	abs := args.Path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(s.cwd, abs)
	}
	shown := a.spell(s.cwd, abs)
	if a.b.Break != "unannounced" {
		a.update(s, acp.StartToolCall(acp.ToolCallId(id), c.name+" "+shown, acp.WithStartKind(acp.ToolKindRead),
			acp.WithStartStatus(acp.ToolCallStatusPending), acp.WithStartLocations([]acp.ToolCallLocation{{Path: abs}}),
			acp.WithStartRawInput(json.RawMessage(c.args))))
	}
	body, err := os.ReadFile(abs)
	result, failed := string(body)+"(read "+shown+")", false
	if err != nil {
		result, failed = "error: "+strings.ReplaceAll(err.Error(), abs, shown), true
	}
	status := acp.ToolCallStatusCompleted
	if failed {
		status = acp.ToolCallStatusFailed
	}
	a.update(s, acp.UpdateToolCall(acp.ToolCallId(id), acp.WithUpdateStatus(status),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(result))})))
	s.mu.Lock()
	s.msgs = append(s.msgs, message{role: "tool", text: result, callID: c.id, isError: failed})
	s.mu.Unlock()
}

// spell writes abs as the behaviour asks.
func (a *agent) spell(cwd, abs string) string {
	switch a.b.Paths {
	case "rel":
		if r, err := filepath.Rel(cwd, abs); err == nil {
			return r
		}
	case "root":
		return strings.TrimPrefix(abs, "/")
	}
	return abs
}

func (a *agent) SetSessionMode(ctx context.Context, p acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
}

func (a *agent) ListSessions(ctx context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	return acp.ListSessionsResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionList)
}

func (a *agent) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	return acp.ResumeSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionResume)
}

func (a *agent) CloseSession(ctx context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	return acp.CloseSessionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionClose)
}

func (a *agent) SetSessionConfigOption(ctx context.Context, p acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}
