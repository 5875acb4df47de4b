package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// Script is what a recorded session becomes.
type Script struct {
	Input    []byte   // input.json, indented
	Override []byte   // replay.override.json (the cancel points); nil: none
	Notes    []string // what the scenario leaves out of what the client did
	Prompt   string   // the first prompt's text, for the scenario's reason ("" for none)
}

// patch is one hangAfter patch of replay.override.json.
type patch struct {
	Call      int `json:"call"`
	HangAfter int `json:"hangAfter"`
}

// Script writes what the client did as a client script. calls are the
// model calls of the run as its composed log holds them (call N is
// calls[N-1]), for the point of each cancel; nil for a native agent.
// Its error says every reason the session cannot be a scenario.
func (r *Recorder) Script(calls []httplog.Exchange) (Script, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := writer{r: r, calls: calls, current: -1}
	for _, c := range r.order {
		w.step(c)
	}
	if len(r.problems) > 0 {
		return Script{}, errors.New(strings.Join(r.problems, "; "))
	}
	in := scenario.Input{Steps: w.steps, ClientCapabilities: r.caps}
	for _, k := range r.perms {
		in.PermissionAnswers = append(in.PermissionAnswers, scenario.PermissionAnswer{Kind: k})
	}
	for _, a := range r.answers {
		ca := scenario.ClientAnswer{Method: a.Method, Result: a.Result}
		if a.Error != nil {
			ca.Error = &scenario.RPCError{Code: a.Error.Code, Message: a.Error.Message, Data: a.Error.Data}
		}
		in.ClientAnswers = append(in.ClientAnswers, ca)
	}
	s := Script{Notes: slices.Clone(r.notes), Prompt: w.prompt}
	for _, m := range slices.Sorted(mapsKeys(r.served)) {
		s.Notes = append(s.Notes, fmt.Sprintf("the client served %d %s request(s); a replay serves them inside the scenario's folder", r.served[m], m))
	}
	var err error
	if s.Input, err = indent(in); err != nil {
		return Script{}, err
	}
	if len(w.patches) > 0 {
		if s.Override, err = indent(map[string]any{"patches": w.patches}); err != nil {
			return Script{}, err
		}
	}
	return s, nil
}

func mapsKeys(m map[string]int) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// indent is v as an indented JSON document, HTML characters as written.
func indent(v any) ([]byte, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	e.SetIndent("", "  ")
	if err := e.Encode(v); err != nil {
		return nil, fmt.Errorf("script: %w", err)
	}
	return b.Bytes(), nil
}

// writer turns the client's requests into steps, keeping the current
// session as the harness will (the last one created or named).
type writer struct {
	r       *Recorder
	calls   []httplog.Exchange
	steps   []scenario.Step
	patches []patch
	current int // index in r.sessions; -1: none yet
	created int // sessions created so far by the steps written
	prompt  string
}

// step writes the step of one request or notification of the client.
// A dispatch over the methods of ACP: each has its op, and what has none
// is a raw request or notification.
func (w *writer) step(c *call) {
	if c.answer == nil && !c.notify {
		w.r.problem(fmt.Sprintf("the client disconnected while its %s was still unanswered (the scenario would end in a request that never finished); let the agent answer, or cancel the prompt, before the client goes", c.method))
		return
	}
	if c.notify {
		w.notify(c)
		return
	}
	failed := c.answer.Error != nil
	switch c.method {
	case "initialize":
		w.typed(c, scenario.Step{Op: scenario.OpInitialize})
	case "authenticate":
		w.typed(c, scenario.Step{Op: scenario.OpAuthenticate, MethodID: str(c.params, "methodId")})
	case "session/new":
		w.newSession(c, failed)
	case "session/prompt":
		w.promptStep(c, failed)
	case "session/set_mode":
		w.sessionStep(c, scenario.Step{Op: scenario.OpSetMode, ModeID: str(c.params, "modeId")})
	case "session/set_model":
		w.sessionStep(c, scenario.Step{Op: scenario.OpSetModel, ModelID: str(c.params, "modelId")})
	case "session/set_config_option":
		w.sessionStep(c, scenario.Step{Op: scenario.OpSetConfigOption, ConfigID: str(c.params, "configId"), Value: member(c.params, "value")})
	case "session/list":
		s := scenario.Step{Op: scenario.OpListSessions}
		if cwd := str(c.params, "cwd"); cwd != "" {
			s.Cwd = w.r.cwd.token(cwd)
		}
		w.typed(c, s)
	case "session/load", "session/resume", "session/fork", "session/close":
		w.sessionOp(c)
	default:
		w.raw(c)
	}
}

// typed writes a step whose op is the method's, or a requestExpectError
// when the agent refused it.
func (w *writer) typed(c *call, s scenario.Step) {
	if c.answer.Error != nil {
		w.raw(c)
		return
	}
	w.steps = append(w.steps, s)
}

// raw writes c as it went: a request (with expectError when refused).
func (w *writer) raw(c *call) {
	op := scenario.OpRequest
	if c.answer.Error != nil {
		op = scenario.OpRequestExpectError
	}
	params, err := w.r.template(c.params)
	if err != nil {
		w.r.problem(fmt.Sprintf("the params of the client's %s: %v", c.method, err))
		return
	}
	w.steps = append(w.steps, scenario.Step{Op: op, Method: c.method, Params: params})
}

// notify writes a notification of the client: a cancel of nothing
// pending, or anything else as it went.
func (w *writer) notify(c *call) {
	if c.method == "session/cancel" && w.isCurrent(str(c.params, "sessionId")) {
		w.steps = append(w.steps, scenario.Step{Op: scenario.OpCancel})
		return
	}
	params, err := w.r.template(c.params)
	if err != nil {
		w.r.problem(fmt.Sprintf("the params of the client's %s: %v", c.method, err))
		return
	}
	w.steps = append(w.steps, scenario.Step{Op: scenario.OpNotify, Method: c.method, Params: params})
}

// isCurrent reports whether id is the session the harness's steps address.
func (w *writer) isCurrent(id string) bool {
	return w.created > 0 && w.current >= 0 && w.current < len(w.r.sessions) && w.r.sessions[w.current] == id
}

// newSession writes a session/new: newSession with the scenario's cwd, or
// newSessionExpectError with the params a scenario may lay over it.
func (w *writer) newSession(c *call, failed bool) {
	var p map[string]json.RawMessage
	json.Unmarshal(c.params, &p)
	if servers := p["mcpServers"]; len(servers) > 0 && string(servers) != "[]" {
		w.r.note("the client's MCP servers reached the agent live; the scenario's newSession declares none (declare them in input.json to record them in cassettes)")
	}
	if !failed {
		for _, k := range []string{"_meta", "additionalDirectories"} {
			if _, ok := p[k]; ok {
				w.r.note("the client's session/new carried " + k + ", which a newSession step does not send")
			}
		}
		w.steps = append(w.steps, scenario.Step{Op: scenario.OpNewSession})
		w.created++
		w.current = w.created - 1
		return
	}
	over := map[string]json.RawMessage{}
	for _, k := range []string{"_meta", "additionalDirectories"} {
		if v, ok := p[k]; ok {
			over[k] = v
		}
	}
	s := scenario.Step{Op: scenario.OpNewSessionExpectError}
	if len(over) > 0 {
		b, _ := json.Marshal(over)
		params, err := w.r.template(b)
		if err != nil {
			w.r.problem(fmt.Sprintf("the params of the client's session/new: %v", err))
			return
		}
		s.Params = params
	}
	w.steps = append(w.steps, s)
}

// sessionStep writes an op that addresses the current session, or the raw
// request when the client named another one.
func (w *writer) sessionStep(c *call, s scenario.Step) {
	if !w.isCurrent(c.session) {
		w.raw(c)
		return
	}
	w.typed(c, s)
}

// sessionOp writes load, resume, fork and close: the session by its
// number in the run.
func (w *writer) sessionOp(c *call) {
	ops := map[string]string{"session/load": scenario.OpLoadSession, "session/resume": scenario.OpResumeSession,
		"session/fork": scenario.OpForkSession, "session/close": scenario.OpCloseSession}
	n := slices.Index(w.r.sessions, c.session)
	if n < 0 || n >= w.created {
		w.r.problem(fmt.Sprintf("the client's %s names the session %s, which this capture did not create (a scenario can only name the sessions it creates)", c.method, c.session))
		return
	}
	if c.answer.Error != nil {
		w.raw(c)
		return
	}
	w.steps = append(w.steps, scenario.Step{Op: ops[c.method], Session: n + 1})
	w.current = n
	if c.method == "session/fork" {
		w.created++
		w.current = w.created - 1
	}
}

// promptStep writes a prompt: its text or its content blocks, expected to
// fail when the agent refused it, cancelled at its point in the model's
// stream when the client cancelled it.
func (w *writer) promptStep(c *call, failed bool) {
	content, err := w.r.template(member(c.params, "prompt"))
	if err != nil {
		w.r.problem(fmt.Sprintf("the client's session/prompt: %v", err))
		return
	}
	text, plain := plainText(content)
	if w.prompt == "" && plain {
		w.prompt = text
	}
	switch {
	case c.cancelledAt >= 0:
		w.cancelled(c, text, plain)
	case !w.isCurrent(c.session):
		w.raw(c)
	case failed && plain:
		w.steps = append(w.steps, scenario.Step{Op: scenario.OpPromptExpectError, Text: text})
	case failed:
		w.raw(c)
	case plain:
		w.steps = append(w.steps, scenario.Step{Op: scenario.OpPrompt, Text: text})
	default:
		w.steps = append(w.steps, scenario.Step{Op: scenario.OpPromptContent, Content: content})
	}
}

// cancelled writes a prompt the client cancelled: a promptAndCancel, and a
// patch that stalls the model call that was streaming when the cancel
// came after the events the agent had got, the point the replay cancels
// at.
func (w *writer) cancelled(c *call, text string, plain bool) {
	if !plain || !w.isCurrent(c.session) {
		w.r.problem("the client cancelled a prompt that is not one text block of the current session; a scenario cancels only those (promptAndCancel)")
		return
	}
	if w.calls == nil {
		w.r.problem("the client cancelled a prompt of a native agent; a scenario of one cancels at a marker file of its own (promptAndCancel with waitForFile, see docs/format.md), which a capture cannot write")
		return
	}
	streaming := 0
	for n := c.calls + 1; n <= c.cancelledAt && n <= len(w.calls); n++ {
		if w.calls[n-1].Response.End == httplog.EndCancel {
			if streaming != 0 {
				streaming = -1
				break
			}
			streaming = n
		}
	}
	if streaming <= 0 {
		w.r.problem(fmt.Sprintf("the client cancelled the prompt %q while no one model call was streaming (during a tool call, a permission request, or after the answer); a scenario cancels a prompt at a point of the model's stream only", clipText(text)))
		return
	}
	w.patches = append(w.patches, patch{Call: streaming, HangAfter: len(w.calls[streaming-1].Response.Events)})
	w.steps = append(w.steps, scenario.Step{Op: scenario.OpPromptAndCancel, Text: text})
}

// plainText is the text of content when it is exactly one text block
// with nothing else (no annotations, no _meta).
func plainText(content json.RawMessage) (string, bool) {
	var blocks []map[string]json.RawMessage
	if json.Unmarshal(content, &blocks) != nil || len(blocks) != 1 || len(blocks[0]) != 2 {
		return "", false
	}
	var typ, text string
	if json.Unmarshal(blocks[0]["type"], &typ) != nil || typ != "text" || json.Unmarshal(blocks[0]["text"], &text) != nil {
		return "", false
	}
	return text, true
}

// str is the string member key of the JSON object raw ("" when absent).
func str(raw json.RawMessage, key string) string {
	var s string
	json.Unmarshal(member(raw, key), &s)
	return s
}

// member is the member key of the JSON object raw (nil when absent).
func member(raw json.RawMessage, key string) json.RawMessage {
	var m map[string]json.RawMessage
	json.Unmarshal(raw, &m)
	return m[key]
}

func clipText(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
