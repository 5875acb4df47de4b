// Package fakeagent is a small scripted ACP agent for the harness tests.
//
// A test binary becomes the agent when it is started with Env set to a
// JSON Script: TestMain calls Main first, which runs the script and exits,
// or returns when Env is unset. The harness passes no environment it does
// not know, so tests put Env into the scenario manifest's env.
//
// The agent speaks raw JSON-RPC over stdio (so it can also misbehave:
// print non-JSON, never answer, exit mid-request). It writes a session log
// per session under ACPSNAP_SESSIONS_DIR with sessionlog, and prints each
// request it receives on stderr as "fakeagent: <- method params", so tests
// can see what the client sent. The answers it gets to its own requests
// (Action.Call) are logged as "client/answer" events {method, result, error}.
//
// Defaults: initialize answers protocol version 1; session/new rejects a
// relative cwd or any MCP server with -32602, else opens the log and
// answers; a prompt with no script starts a turn, streams one
// agent_message_chunk, ends the turn and answers end_turn; at stdin EOF it
// writes an empty replay report (AtEOF nil), closes its logs and exits 0.
package fakeagent

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/internal/strictjson"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// Env names the environment variable that selects the fake agent and holds
// its Script as JSON.
const Env = "FAKEAGENT_SCRIPT"

// Script is what the fake agent does.
type Script struct {
	Start      []Action `json:"start,omitempty"`      // at startup, before reading stdin
	Initialize []Action `json:"initialize,omitempty"` // then answers, unless an action did
	NewSession []Action `json:"newSession,omitempty"` // after the session exists, before answering
	// SessionReady runs once session/new is answered: what an agent sends
	// for a session the client knows (an update to wait for with
	// waitForUpdate).
	SessionReady []Action   `json:"sessionReady,omitempty"`
	Prompts      [][]Action `json:"prompts,omitempty"` // per session/prompt in order; beyond: the default prompt
	AtEOF        []Action   `json:"atEOF"`             // at stdin EOF; nil: write an empty replay report
	// Methods script the requests of any other method: the actions run,
	// then the request is answered {} unless an action did. A method
	// without an entry is answered -32601.
	Methods    map[string][]Action `json:"methods,omitempty"`
	IgnoreEOF  bool                `json:"ignoreEOF,omitempty"`  // keep running after stdin closes
	IgnoreTerm bool                `json:"ignoreTerm,omitempty"` // ignore SIGTERM
}

// Action is one thing the agent does; set exactly one field (Params goes
// with Call). In Params and Update, "{{cwd}}", "{{session}}" and
// "{{terminal}}" (the last terminal id it was given) are expanded.
type Action struct {
	Reply       json.RawMessage  `json:"reply,omitempty"`      // answer the request with this result
	ReplyError  *RPCError        `json:"replyError,omitempty"` // answer the request with this error
	NoReply     bool             `json:"noReply,omitempty"`    // never answer the request
	TurnStart   bool             `json:"turnStart,omitempty"`  // log turn/start {turn: next}
	TurnEnd     string           `json:"turnEnd,omitempty"`    // log turn/end {turn, reason: {kind}}
	RawLog      string           `json:"rawLog,omitempty"`     // append this raw line to the log
	Update      json.RawMessage  `json:"update,omitempty"`     // send session/update with this update
	Call        string           `json:"call,omitempty"`       // call a client method, log the answer
	Params      json.RawMessage  `json:"params,omitempty"`     // Call's params
	Child       *Child           `json:"child,omitempty"`      // write a subagent log
	WriteFile   string           `json:"writeFile,omitempty"`  // create this cwd-relative file
	WaitCancel  bool             `json:"waitCancel,omitempty"` // block until session/cancel
	SleepMs     int              `json:"sleepMs,omitempty"`
	Stdout      string           `json:"stdout,omitempty"`      // write this raw line to stdout
	StdoutRaw   []byte           `json:"stdoutRaw,omitempty"`   // write these bytes (base64 in JSON, so any bytes) and "\n" to stdout
	Stderr      string           `json:"stderr,omitempty"`      // write this line to stderr
	Spawn       []string         `json:"spawn,omitempty"`       // start a background process sharing stdout
	Exit        *int             `json:"exit,omitempty"`        // exit now with this code
	Report      *agentenv.Report `json:"report,omitempty"`      // write replay-report.json
	PrintEnv    bool             `json:"printEnv,omitempty"`    // print "fakeagent: env K=V" lines on stderr, sorted
	Burst       int              `json:"burst,omitempty"`       // send this many agent_message_chunk updates in one write
	File        *File            `json:"file,omitempty"`        // make a file under ACPSNAP_SESSIONS_DIR
	LongLine    int              `json:"longLine,omitempty"`    // write one JSON line of this many bytes to stdout
	Run         []string         `json:"run,omitempty"`         // run a command in the cwd and wait for it (its output to stderr)
	Shell       string           `json:"shell,omitempty"`       // run sh -c in the cwd; send its stdout as an agent_message_chunk and log it
	StdoutExact []byte           `json:"stdoutExact,omitempty"` // write exactly these bytes (base64 in JSON) to stdout, no newline added
}

// File is a file the agent leaves in its sessions directory, to try the
// harness's harvest: set one of Content (raw bytes, no newline added),
// Fifo or Link.
type File struct {
	Path    string `json:"path"` // relative to ACPSNAP_SESSIONS_DIR; parent folders are made
	Content string `json:"content,omitempty"`
	Fifo    bool   `json:"fifo,omitempty"` // a named pipe
	Link    string `json:"link,omitempty"` // a symbolic link to this target
}

// RPCError is a JSON-RPC error object.
type RPCError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Child writes a subagent log: a header with parentSession and spawnedBy,
// then turn/start 1 and turn/end 1, after DelayMs (in the background when
// DelayMs > 0, so the prompt can answer first).
type Child struct {
	DelayMs int `json:"delayMs,omitempty"`
}

// Main runs the fake agent and exits if Env is set; otherwise it returns.
func Main() {
	raw := os.Getenv(Env)
	if raw == "" {
		return
	}
	var s Script
	if err := json.Unmarshal([]byte(raw), &s); err != nil {
		fmt.Fprintf(os.Stderr, "fakeagent: bad script: %v\n", err)
		os.Exit(2)
	}
	os.Exit(Run(s, os.Stdin, os.Stdout, os.Stderr))
}

// message is any JSON-RPC message.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
}

// agent is the fake's state.
type agent struct {
	script   Script
	sessions string // ACPSNAP_SESSIONS_DIR
	stderr   io.Writer

	outMu sync.Mutex
	out   io.Writer

	mu       sync.Mutex
	cwd      string
	session  string
	log      *sessionlog.Writer
	logPath  string
	turn     int
	prompts  int
	children int
	terminal string
	nextID   int
	pending  map[string]chan message
	cancel   chan struct{}
	closers  []*sessionlog.Writer
	bg       sync.WaitGroup
}

// Run serves the script on stdin/stdout and returns the exit code.
func Run(s Script, stdin io.Reader, stdout, stderr io.Writer) int {
	if s.IgnoreTerm {
		signal.Ignore(syscall.SIGTERM)
	}
	a := &agent{script: s, sessions: os.Getenv("ACPSNAP_SESSIONS_DIR"), out: stdout, stderr: stderr,
		pending: map[string]chan message{}, cancel: make(chan struct{})}
	a.do(s.Start)
	sc := strictjson.NewScanner(stdin)
	for sc.Scan() {
		var m message
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			fmt.Fprintf(stderr, "fakeagent: bad input line: %v\n", err)
			continue
		}
		a.dispatch(m)
	}
	eof := s.AtEOF
	if eof == nil {
		eof = []Action{{Report: &agentenv.Report{Fixtures: []agentenv.FixtureReport{}}}}
	}
	a.bg.Wait()
	a.do(eof)
	a.closeLogs()
	for s.IgnoreEOF {
		time.Sleep(time.Hour)
	}
	return 0
}

func (a *agent) dispatch(m message) {
	switch {
	case m.Method == "" && m.ID != nil: // an answer to one of our calls
		a.mu.Lock()
		ch := a.pending[string(m.ID)]
		a.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	case m.Method == "session/cancel":
		fmt.Fprintf(a.stderr, "fakeagent: <- %s %s\n", m.Method, m.Params)
		a.mu.Lock()
		select {
		case <-a.cancel:
		default:
			close(a.cancel)
		}
		a.mu.Unlock()
	case m.ID != nil:
		fmt.Fprintf(a.stderr, "fakeagent: <- %s %s\n", m.Method, m.Params)
		go a.handle(m)
	case m.Method != "":
		fmt.Fprintf(a.stderr, "fakeagent: <- notification %s %s\n", m.Method, m.Params)
	}
}

// handle answers one request from the client.
func (a *agent) handle(m message) {
	var r reply
	switch m.Method {
	case "initialize":
		r = a.do(a.script.Initialize)
		r.def(json.RawMessage(`{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}`))
	case "session/new":
		if err := a.newSession(m.Params); err != nil {
			r = reply{err: err}
			break
		}
		r = a.do(a.script.NewSession)
		r.def(json.RawMessage(a.expand(json.RawMessage(`{"sessionId":"{{session}}"}`))))
	case "session/prompt":
		r = a.prompt(&m)
	default:
		actions, ok := a.script.Methods[m.Method]
		if !ok {
			r = reply{err: &RPCError{Code: -32601, Message: "Method not found"}}
			break
		}
		r = a.do(actions)
		r.def(json.RawMessage(`{}`))
	}
	if r.none {
		return
	}
	out := message{JSONRPC: "2.0", ID: m.ID, Result: r.result, Error: r.err}
	if r.err == nil && r.result == nil {
		out.Result = json.RawMessage("null")
	}
	a.send(out)
	if m.Method == "session/new" && r.err == nil {
		a.do(a.script.SessionReady)
	}
}

// reply is how a request ends.
type reply struct {
	result json.RawMessage
	err    *RPCError
	none   bool // never answer
	set    bool
}

func (r *reply) def(result json.RawMessage) {
	if !r.set {
		r.result, r.set = result, true
	}
}

func (a *agent) newSession(params json.RawMessage) *RPCError {
	var p struct {
		Cwd        string            `json:"cwd"`
		McpServers []json.RawMessage `json:"mcpServers"`
	}
	json.Unmarshal(params, &p)
	if !filepath.IsAbs(p.Cwd) {
		return &RPCError{Code: -32602, Message: "cwd must be absolute"}
	}
	if len(p.McpServers) > 0 {
		return &RPCError{Code: -32602, Message: "MCP servers are not supported"}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.cwd = p.Cwd
	a.session = fmt.Sprintf("sess-%d", len(a.closers)+1)
	a.logPath = filepath.Join(a.sessions, a.session, sessionlog.FileName)
	w, err := sessionlog.Create(a.logPath, sessionlog.Header{ID: a.session, CreatedAt: time.Now().UnixMilli(), Cwd: p.Cwd}, nil)
	if err != nil {
		return &RPCError{Code: -32603, Message: err.Error()}
	}
	a.log, a.turn = w, 0
	a.closers = append(a.closers, w)
	return nil
}

func (a *agent) prompt(m *message) reply {
	a.mu.Lock()
	n := a.prompts
	a.prompts++
	a.cancel = make(chan struct{})
	a.mu.Unlock()
	actions := []Action{{TurnStart: true},
		{Update: json.RawMessage(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"ok"}}`)},
		{TurnEnd: "completed"}}
	if n < len(a.script.Prompts) {
		actions = a.script.Prompts[n]
	}
	r := a.do(actions)
	r.def(json.RawMessage(`{"stopReason":"end_turn"}`))
	return r
}

func (a *agent) send(m message) {
	b, err := strictjson.Marshal(m)
	if err != nil {
		panic(err)
	}
	a.write(b)
}

func (a *agent) write(b []byte) {
	a.outMu.Lock()
	defer a.outMu.Unlock()
	a.out.Write(b)
}

func (a *agent) closeLogs() {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, w := range a.closers {
		w.Close()
	}
}

// do runs actions in order; the reply says whether one of them answered.
func (a *agent) do(actions []Action) reply {
	var r reply
	for _, act := range actions {
		a.act(act, &r)
	}
	return r
}

// act performs one action: a dispatch switch over the set field.
func (a *agent) act(act Action, r *reply) {
	switch {
	case act.Reply != nil:
		r.result, r.set = act.Reply, true
	case act.ReplyError != nil:
		r.err, r.set = act.ReplyError, true
	case act.NoReply:
		r.none, r.set = true, true
	case act.TurnStart:
		a.mu.Lock()
		a.turn++
		turn := a.turn
		a.mu.Unlock()
		a.event("turn/start", map[string]any{"turn": turn})
	case act.TurnEnd != "":
		a.mu.Lock()
		turn := a.turn
		a.mu.Unlock()
		a.event("turn/end", map[string]any{"turn": turn, "reason": map[string]string{"kind": act.TurnEnd}})
	case act.RawLog != "":
		a.mu.Lock()
		path := a.logPath
		a.mu.Unlock()
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err == nil {
			f.WriteString(act.RawLog + "\n")
			f.Close()
		}
	case act.Update != nil:
		params := fmt.Sprintf(`{"sessionId":"{{session}}","update":%s}`, act.Update)
		params = a.expand(json.RawMessage(params))
		a.send(message{JSONRPC: "2.0", Method: "session/update", Params: json.RawMessage(params)})
	case act.Call != "":
		a.call(act.Call, a.expand(act.Params))
	case act.Child != nil:
		a.child(*act.Child)
	case act.WriteFile != "":
		a.mu.Lock()
		cwd := a.cwd
		a.mu.Unlock()
		os.WriteFile(filepath.Join(cwd, act.WriteFile), []byte("ready\n"), 0o644)
	case act.WaitCancel:
		a.mu.Lock()
		ch := a.cancel
		a.mu.Unlock()
		<-ch
		r.def(json.RawMessage(`{"stopReason":"cancelled"}`))
	case act.SleepMs > 0:
		time.Sleep(time.Duration(act.SleepMs) * time.Millisecond)
	case act.Stdout != "":
		a.write([]byte(act.Stdout + "\n"))
	case act.StdoutExact != nil:
		a.write(act.StdoutExact)
	case act.StdoutRaw != nil:
		a.write(append(act.StdoutRaw, '\n'))
	case act.Stderr != "":
		fmt.Fprintln(a.stderr, act.Stderr)
	case act.Spawn != nil:
		cmd := exec.Command(act.Spawn[0], act.Spawn[1:]...)
		cmd.Stdout, cmd.Stderr = a.out, a.stderr
		if err := cmd.Start(); err != nil {
			fmt.Fprintf(a.stderr, "fakeagent: spawn: %v\n", err)
		}
	case act.Exit != nil:
		a.closeLogs()
		os.Exit(*act.Exit)
	case act.PrintEnv:
		env := os.Environ()
		sort.Strings(env)
		for _, kv := range env {
			fmt.Fprintf(a.stderr, "fakeagent: env %s\n", kv)
		}
	case act.Run != nil:
		a.mu.Lock()
		cwd := a.cwd
		a.mu.Unlock()
		cmd := exec.Command(act.Run[0], act.Run[1:]...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = cwd, a.stderr, a.stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintf(a.stderr, "fakeagent: run: %v\n", err)
		}
	case act.Shell != "":
		a.mu.Lock()
		cwd := a.cwd
		a.mu.Unlock()
		cmd := exec.Command("sh", "-c", act.Shell)
		cmd.Dir, cmd.Stderr = cwd, a.stderr
		out, _ := cmd.Output()
		text, _ := json.Marshal(string(out))
		// logged before it is sent: a client that waits for the update
		// then finds it in the log too
		a.event("shell/output", map[string]string{"output": string(out)})
		a.act(Action{Update: json.RawMessage(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":` + string(text) + `}}`)}, r)
	case act.LongLine > 0:
		line := make([]byte, act.LongLine)
		for i := range line {
			line[i] = 'a'
		}
		copy(line, `{"x":"`)
		copy(line[len(line)-2:], `"}`)
		a.write(append(line, '\n'))
	case act.Burst > 0:
		a.burst(act.Burst)
	case act.File != nil:
		if err := a.file(*act.File); err != nil {
			fmt.Fprintf(a.stderr, "fakeagent: file: %v\n", err)
		}
	case act.Report != nil:
		if err := agentenv.WriteReport(a.sessions, *act.Report); err != nil {
			fmt.Fprintf(a.stderr, "fakeagent: %v\n", err)
		}
	}
}

// burst writes n session/update notifications at once.
func (a *agent) burst(n int) {
	a.mu.Lock()
	session := a.session
	a.mu.Unlock()
	var buf []byte
	for i := range n {
		buf = fmt.Appendf(buf, `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":%q,"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"chunk %d "}}}}`+"\n", session, i)
	}
	a.write(buf)
}

func (a *agent) file(f File) error {
	path := filepath.Join(a.sessions, f.Path)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	switch {
	case f.Fifo:
		return syscall.Mkfifo(path, 0o644)
	case f.Link != "":
		return os.Symlink(f.Link, path)
	}
	return os.WriteFile(path, []byte(f.Content), 0o644)
}

func (a *agent) event(typ string, data any) {
	a.mu.Lock()
	w := a.log
	a.mu.Unlock()
	if w == nil {
		fmt.Fprintf(a.stderr, "fakeagent: %s without a session\n", typ)
		return
	}
	if err := w.Append(typ, data); err != nil {
		fmt.Fprintf(a.stderr, "fakeagent: %v\n", err)
	}
}

func (a *agent) expand(raw json.RawMessage) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	cwd, _ := json.Marshal(a.cwd)
	s := strings.ReplaceAll(string(raw), "{{cwd}}", string(cwd[1:len(cwd)-1]))
	s = strings.ReplaceAll(s, "{{session}}", a.session)
	return strings.ReplaceAll(s, "{{terminal}}", a.terminal)
}

// call sends a request to the client, waits for the answer and logs it.
func (a *agent) call(method, params string) {
	a.mu.Lock()
	a.nextID++
	id := json.RawMessage(fmt.Sprint(a.nextID))
	ch := make(chan message, 1)
	a.pending[string(id)] = ch
	a.mu.Unlock()
	if params == "" {
		params = "{}"
	}
	a.send(message{JSONRPC: "2.0", ID: id, Method: method, Params: json.RawMessage(params)})
	ans := <-ch
	if method == "terminal/create" && ans.Result != nil {
		var r struct {
			TerminalID string `json:"terminalId"`
		}
		json.Unmarshal(ans.Result, &r)
		a.mu.Lock()
		a.terminal = r.TerminalID
		a.mu.Unlock()
	}
	a.event("client/answer", map[string]any{"method": method, "result": ans.Result, "error": ans.Error})
}

// child writes a subagent log, in the background when delayed.
func (a *agent) child(c Child) {
	a.mu.Lock()
	a.children++
	n, parent, cwd := a.children, a.session, a.cwd
	a.mu.Unlock()
	write := func() {
		id := fmt.Sprintf("%s-child-%d", parent, n)
		h := sessionlog.Header{ID: id, CreatedAt: time.Now().UnixMilli(), Cwd: cwd, DelegationDepth: 1,
			ParentSession: parent, Origin: "subagent", SpawnedBy: fmt.Sprintf("call_%d", n)}
		w, err := sessionlog.Create(filepath.Join(a.sessions, id, sessionlog.FileName), h, nil)
		if err != nil {
			fmt.Fprintf(a.stderr, "fakeagent: %v\n", err)
			return
		}
		w.Append("turn/start", map[string]any{"turn": 1})
		time.Sleep(time.Duration(c.DelayMs) * time.Millisecond)
		w.Append("turn/end", map[string]any{"turn": 1, "reason": map[string]string{"kind": "completed"}})
		w.Close()
	}
	if c.DelayMs == 0 {
		write()
		return
	}
	a.bg.Add(1)
	go func() {
		defer a.bg.Done()
		write()
	}()
}
