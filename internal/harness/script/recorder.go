package script

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/acpsnap/acpsnap/internal/console"
)

// message is one JSON-RPC message as either side wrote it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *rpcError       `json:"error"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// kind is what a message is: a request (method and id), a notification
// (method, no id) or a response (id, no method).
func (m message) request() bool      { return m.Method != "" && hasID(m.ID) }
func (m message) notification() bool { return m.Method != "" && !hasID(m.ID) }
func (m message) response() bool     { return m.Method == "" && hasID(m.ID) }

func hasID(id json.RawMessage) bool { return len(id) > 0 && string(id) != "null" }

// call is one request the client sent, in the order it sent them: the
// step it becomes once the agent has answered it.
type call struct {
	method  string
	params  json.RawMessage
	session string // the session its params name ("" for none)
	answer  *message
	// calls is how many model calls the proxy had received when the
	// request was sent, and when the client cancelled it (a prompt); -1:
	// not cancelled.
	calls, cancelledAt int
	notify             bool // a notification: no answer to wait for
}

// asked is one request the agent sent the client.
type asked struct {
	method string
	params json.RawMessage
}

// Recorder keeps what the client of one session did. Its methods are safe
// for concurrent use: each side of the relay calls its own.
type Recorder struct {
	cwd   spellings
	calls func() int // model calls so far; nil: a native agent

	mu       sync.Mutex
	order    []*call          // the client's requests and notifications, as sent
	pending  map[string]*call // by the client's request id
	asked    map[string]asked // the agent's requests, by id
	sessions []string         // created by session/new and session/fork, in order
	caps     json.RawMessage  // initialize's clientCapabilities
	client   string           // initialize's clientInfo, "name version"
	agent    [2]string        // initialize's agentInfo: name, version
	perms    []string         // the kinds of the options the client chose
	answers  []clientAnswer   // the client's answers to other requests
	served   map[string]int   // requests of the agent the client served itself (fs, terminal)
	problems []string         // why no scenario can say what the client did
	notes    []string         // what the scenario leaves out
	noted    map[string]bool  // notes given once
	clientN  int              // lines the client sent
}

// clientAnswer is the client's answer to an agent request it does not
// leave to the harness.
type clientAnswer struct {
	Method string          `json:"method"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// New records a session whose client works in cwd (aliases: its other
// spellings). calls, for an agent whose model goes through the proxy,
// counts the model calls the proxy has received so far: it places a
// client's cancel in the model's stream. nil: a native agent.
func New(cwd string, aliases []string, calls func() int) *Recorder {
	return &Recorder{cwd: newSpellings(cwd, aliases), calls: calls, pending: map[string]*call{},
		asked: map[string]asked{}, served: map[string]int{}, noted: map[string]bool{}}
}

// Client is a line the client sent. It returns the answer to send the
// client instead of passing the line on (a session/new for another
// folder), or nil: the line goes to the agent.
func (r *Recorder) Client(line []byte) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.clientN++
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		r.problem(fmt.Sprintf("the client's line %d is not a JSON-RPC message (%v): %s", r.clientN, err, console.Quote(clip(line))))
		return nil
	}
	switch {
	case m.request():
		return r.clientRequest(m)
	case m.notification():
		r.clientNotification(m)
	case m.response():
		r.clientResponse(m)
	default:
		r.problem(fmt.Sprintf("the client's line %d is neither a request, a notification nor a response: %s", r.clientN, console.Quote(clip(line))))
	}
	return nil
}

// clientRequest keeps a request the client sent; a session/new or
// session/load for a folder other than the capture's is answered here.
func (r *Recorder) clientRequest(m message) []byte {
	var p struct {
		SessionID string  `json:"sessionId"`
		Cwd       *string `json:"cwd"`
	}
	json.Unmarshal(m.Params, &p)
	if p.Cwd != nil && (m.Method == "session/new" || m.Method == "session/load" || m.Method == "session/resume" || m.Method == "session/fork") && !r.cwd.is(*p.Cwd) {
		msg := fmt.Sprintf("acpsnap capture: %s for the folder %s: this capture records the folder it was started in, %s; start the client (or the agent server) there", m.Method, *p.Cwd, r.cwd.main)
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": rpcError{Code: -32602, Message: msg}})
		r.note(msg)
		return b
	}
	for _, busy := range r.order {
		if busy.answer == nil && !busy.notify {
			r.note(fmt.Sprintf("the client sent %s while its %s was running; the scenario sends it once that is answered (its steps run one at a time)", m.Method, busy.method))
			break
		}
	}
	c := &call{method: m.Method, params: m.Params, session: p.SessionID, cancelledAt: -1}
	if r.calls != nil {
		c.calls = r.calls()
	}
	r.order = append(r.order, c)
	r.pending[string(m.ID)] = c
	return nil
}

// clientNotification keeps a notification the client sent: a cancel marks
// the prompt it cancels.
func (r *Recorder) clientNotification(m message) {
	if m.Method == "session/cancel" {
		var p struct {
			SessionID string `json:"sessionId"`
		}
		json.Unmarshal(m.Params, &p)
		for _, c := range r.pending {
			if c.method == "session/prompt" && c.session == p.SessionID && c.cancelledAt < 0 {
				c.cancelledAt = 0
				if r.calls != nil {
					c.cancelledAt = r.calls()
				}
				return
			}
		}
	}
	r.order = append(r.order, &call{method: m.Method, params: m.Params, cancelledAt: -1, notify: true})
}

// clientResponse keeps the client's answer to a request of the agent.
func (r *Recorder) clientResponse(m message) {
	a, ok := r.asked[string(m.ID)]
	if !ok {
		r.note(fmt.Sprintf("the client answered a request id %s the agent never sent", console.Quote(clip(m.ID))))
		return
	}
	delete(r.asked, string(m.ID))
	switch {
	case a.method == "session/request_permission":
		r.permission(a, m)
	case served(a.method):
		r.served[a.method]++
		if m.Error != nil {
			r.note(fmt.Sprintf("the client answered %s with an error (%s); a replay serves it inside the scenario's folder", a.method, console.Quote([]byte(m.Error.Message))))
		}
	default:
		r.answers = append(r.answers, clientAnswer{Method: a.method, Result: m.Result, Error: m.Error})
	}
}

// served reports whether a replay's client serves method itself (so a
// scenario cannot script it).
func served(method string) bool {
	switch method {
	case "fs/read_text_file", "fs/write_text_file", "terminal/create", "terminal/output",
		"terminal/wait_for_exit", "terminal/kill", "terminal/release":
		return true
	}
	return false
}

// permission keeps the kind of the option the client chose.
func (r *Recorder) permission(a asked, m message) {
	var req struct {
		Options []struct {
			OptionID string `json:"optionId"`
			Kind     string `json:"kind"`
		} `json:"options"`
	}
	var resp struct {
		Outcome struct {
			Outcome  string `json:"outcome"`
			OptionID string `json:"optionId"`
		} `json:"outcome"`
	}
	json.Unmarshal(a.params, &req)
	json.Unmarshal(m.Result, &resp)
	if m.Error != nil || resp.Outcome.Outcome != "selected" {
		r.problem("the client answered a session/request_permission without choosing an option (cancelled, or an error); a scenario answers each one with an option's kind (permissionAnswers)")
		return
	}
	for _, o := range req.Options {
		if o.OptionID == resp.Outcome.OptionID {
			r.perms = append(r.perms, o.Kind)
			return
		}
	}
	r.problem(fmt.Sprintf("the client chose the option %q, which the session/request_permission did not offer", resp.Outcome.OptionID))
}

// Disconnected says the client has gone: the requests it left without an
// answer stay unanswered, whatever the agent answers as it ends.
func (r *Recorder) Disconnected() {
	r.mu.Lock()
	defer r.mu.Unlock()
	clear(r.pending)
}

// Agent is a line the agent sent.
func (r *Recorder) Agent(line []byte) {
	var m message
	if json.Unmarshal(line, &m) != nil {
		return // the relay's own check fails the capture
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case m.request():
		r.asked[string(m.ID)] = asked{method: m.Method, params: m.Params}
	case m.response():
		c, ok := r.pending[string(m.ID)]
		if !ok {
			return
		}
		delete(r.pending, string(m.ID))
		c.answer = &m
		r.answered(c)
	}
}

// answered learns what an answer says about the run: the agent's name,
// the capabilities, a new session.
func (r *Recorder) answered(c *call) {
	if c.answer.Error != nil {
		return
	}
	switch c.method {
	case "initialize":
		var p struct {
			ClientCapabilities json.RawMessage                 `json:"clientCapabilities"`
			ClientInfo         *struct{ Name, Version string } `json:"clientInfo"`
		}
		var res struct {
			AgentInfo *struct{ Name, Version string } `json:"agentInfo"`
		}
		json.Unmarshal(c.params, &p)
		json.Unmarshal(c.answer.Result, &res)
		r.caps = p.ClientCapabilities
		if p.ClientInfo != nil {
			r.client = p.ClientInfo.Name + " " + p.ClientInfo.Version
		}
		if res.AgentInfo != nil {
			r.agent = [2]string{res.AgentInfo.Name, res.AgentInfo.Version}
		}
	case "session/new", "session/fork":
		var res struct {
			SessionID string `json:"sessionId"`
		}
		json.Unmarshal(c.answer.Result, &res)
		if res.SessionID != "" && !slices.Contains(r.sessions, res.SessionID) {
			r.sessions = append(r.sessions, res.SessionID)
		}
	}
}

// Sessions are the sessions the agent created so far (session/new,
// session/fork), in order: the first is the scenario's primary.
func (r *Recorder) Sessions() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.sessions)
}

// AgentInfo is the name and version the agent gave in initialize.
func (r *Recorder) AgentInfo() (name, version string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.agent[0], r.agent[1]
}

// ClientInfo is the client's name and version from initialize ("" before).
func (r *Recorder) ClientInfo() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.client
}

// problem records why no scenario can be written (each once).
func (r *Recorder) problem(msg string) {
	if !slices.Contains(r.problems, msg) {
		r.problems = append(r.problems, msg)
	}
}

// note records what the scenario leaves out (each once).
func (r *Recorder) note(msg string) {
	if !r.noted[msg] {
		r.noted[msg] = true
		r.notes = append(r.notes, msg)
	}
}

// clip is at most 200 bytes of b, for messages.
func clip(b []byte) []byte {
	if len(b) > 200 {
		return append(slices.Clone(b[:200]), "…"...)
	}
	return b
}
