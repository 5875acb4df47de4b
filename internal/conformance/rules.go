package conformance

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Rule is one requirement of the Agent Client Protocol that a client can
// see in a run: what the agent wrote, read against what the client sent.
type Rule struct {
	// ID names the rule in messages and in acpsnap.yml's
	// conformance.acknowledge; it never changes.
	ID string
	// Spec is the specification's words the rule checks, verbatim.
	Spec string
	// URL is where they are.
	URL string

	check func(c *conversation) []finding
}

// finding is one place a rule is broken: the agent's message (nil for a
// message that never came) and what it did.
type finding struct {
	m   *message
	msg string
}

const (
	specURL     = "https://agentclientprotocol.com/protocol/"
	schemaURL   = "https://agentclientprotocol.com/protocol/schema"
	transport   = specURL + "transports"
	promptTurn  = specURL + "prompt-turn#cancellation"
	sessionURL  = specURL + "session-setup"
	toolCallURL = specURL + "tool-calls#updating"
)

// Rules are the rules Check applies, in the order it reports them.
var Rules = []*Rule{
	{ID: "jsonrpc", URL: transport, check: checkJSONRPC,
		Spec: "The agent MUST NOT write anything to its stdout that is not a valid ACP message."},
	{ID: "schema", URL: schemaURL, check: checkSchema,
		Spec: "The agent MUST NOT write anything to its stdout that is not a valid ACP message. (Each message is checked against the ACP JSON Schema of its method.)"},
	{ID: "custom-field", URL: specURL + "extensibility", check: checkCustom,
		Spec: "Implementations MUST NOT add any custom fields at the root of a type that's part of the specification. All possible names are reserved for future protocol versions."},
	{ID: "answered-once", URL: specURL + "extensibility#custom-requests", check: checkAnswered,
		Spec: "The Server MUST reply with the same value in the Response object if included. (JSON-RPC 2.0: every request gets one response; \"Upon receiving a custom request, implementations MUST respond accordingly with the provided id\".)"},
	{ID: "known-session", URL: sessionURL, check: checkKnownSession,
		Spec: "The Agent MUST respond with a unique Session ID that identifies this conversation. (A session/update or a request names the session it pertains to: one the agent created, or the client loaded or resumed.)"},
	{ID: "unique-session", URL: sessionURL + "#creating-a-session", check: checkUniqueSession,
		Spec: "The Agent MUST respond with a unique Session ID that identifies this conversation."},
	{ID: "announced-tool-call", URL: toolCallURL, check: checkAnnouncedToolCall,
		Spec: "ToolCallUpdate: An update to an existing tool call. toolCallId: The ID of the tool call being updated. (A tool call exists once a tool_call update, or a session/request_permission for it, announced it.)"},
	{ID: "cancelled-stop-reason", URL: promptTurn, check: checkCancelled,
		Spec: "After all ongoing operations have been successfully aborted and pending updates have been sent, the Agent MUST respond to the original session/prompt request with the cancelled stop reason. […] Agents MUST catch these errors and return the semantically meaningful cancelled stop reason. (session/close: The Agent MUST cancel any ongoing work for that session as if session/cancel had been called.)"},
	{ID: "update-after-cancelled", URL: promptTurn, check: checkAfterCancelled,
		Spec: "The Agent MAY send session/update notifications with content or tool call updates after receiving the session/cancel notification, but it MUST ensure that it does so before responding to the session/prompt request."},
	{ID: "load-replay", URL: sessionURL + "#loading-sessions", check: checkLoadReplay,
		Spec: "When all the conversation entries have been streamed to the Client, the Agent MUST respond to the original session/load request."},
	{ID: "resume-no-replay", URL: sessionURL + "#resuming-sessions", check: checkResume,
		Spec: "Unlike session/load, the Agent MUST NOT replay the conversation history via session/update notifications before responding."},
	{ID: "fs-capability", URL: specURL + "file-system", check: checkFSCapability,
		Spec: "If readTextFile or writeTextFile is false or not present, the Agent MUST NOT attempt to call the corresponding filesystem method."},
	{ID: "terminal-capability", URL: specURL + "terminals", check: checkTerminalCapability,
		Spec: "If terminal is false or not present, the Agent MUST NOT attempt to call any terminal methods."},
	{ID: "known-terminal", URL: specURL + "terminals#releasing-terminals", check: checkKnownTerminal,
		Spec: "Terminal: Embed a terminal created with terminal/create by its id. […] After release the terminal ID becomes invalid for all other terminal/* methods."},
	{ID: "absolute-path", URL: specURL + "overview#argument-requirements", check: checkAbsolutePaths,
		Spec: "All file paths in the protocol MUST be absolute."},
	{ID: "permission-options", URL: specURL + "tool-calls#requesting-permission", check: checkPermissionOptions,
		Spec: "options: Available permission options for the user to choose from. optionId: Unique identifier for this option."},
	{ID: "mode-state", URL: specURL + "session-modes", check: checkModes,
		Spec: "currentModeId: The current mode the Agent is in. availableModes: The set of modes that the Agent can operate in."},
}

// Lookup is the rule with that id; nil: none.
func Lookup(id string) *Rule {
	for _, r := range Rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// IDs are the rules' ids, in table order.
func IDs() []string {
	out := make([]string, len(Rules))
	for i, r := range Rules {
		out[i] = r.ID
	}
	return out
}

// Violation is one place where the agent broke a rule.
type Violation struct {
	Rule *Rule
	// Line is the number of the agent's stdout line that breaks it (1-based,
	// across restarts); 0 when what breaks it is a line that never came.
	Line int
	// Raw is that line; nil with Line 0.
	Raw []byte
	// Msg is what the agent did.
	Msg string
}

// Check applies every rule to a run's lines (both sides, in the order the
// client saw them) and returns the violations, by line, then in rule
// order. It is pure: the same lines give the same violations.
func Check(lines []Line) []Violation {
	c := parse(lines)
	var out []Violation
	for _, r := range Rules {
		for _, f := range r.check(c) {
			v := Violation{Rule: r, Msg: f.msg}
			if f.m != nil {
				v.Line, v.Raw = f.m.N, f.m.Raw
			}
			out = append(out, v)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line < out[j].Line })
	return out
}

// agentMsgs are the agent's messages of kind k.
func (c *conversation) agent(k kind) []*message {
	var out []*message
	for _, m := range c.msgs {
		if m.Agent && m.kind == k {
			out = append(out, m)
		}
	}
	return out
}

func checkJSONRPC(c *conversation) []finding {
	var out []finding
	for _, m := range c.msgs {
		if m.Agent && m.kind == invalid {
			out = append(out, finding{m, m.bad})
		}
	}
	return out
}

// schemaOf is the schema of s an agent's message must match, by its
// method or the method of the request it answers, and what it is ("params
// of fs/read_text_file"); nil with bad for a method s does not have, nil
// alone for what s does not describe (an extension method's params, a
// response to no request).
func (s *schema) schemaOf(m *message) (n *node, what string, raw json.RawMessage, bad string) {
	switch m.kind {
	case request, notification:
		if isExtension(m.method) {
			return nil, "", nil, ""
		}
		meth, ok := s.methods[m.method]
		if !ok || meth.params == "" || meth.side == "agent" {
			return nil, "", nil, fmt.Sprintf("%q is no method a client serves (an extension method's name starts with \"_\")", m.method)
		}
		return s.defs[meth.params], "params of " + m.method, m.params, ""
	case response:
		if m.err != nil {
			return s.defs["Error"], "error", m.err, ""
		}
		meth := s.methods[m.answered()]
		if meth.result == "" || meth.side == "client" {
			return nil, "", nil, ""
		}
		return s.defs[meth.result], "result of " + m.answered(), m.result, ""
	}
	return nil, "", nil, ""
}

// verdict is what the schemas say of an agent's message: nil when one of
// them accepts it, else the sentences of the first that rejects it. With
// custom it judges only the fields a schema does not declare, and only by
// the schemas the message is otherwise valid under (the rest is the schema
// rule's).
func verdict(m *message, custom bool) []string {
	var first []string
	for _, s := range schemas() {
		n, what, _, bad := s.schemaOf(m)
		if bad != "" {
			if !custom && first == nil {
				first = []string{bad}
			}
			continue
		}
		if n == nil {
			return nil
		}
		ps := m.problems(s, n)
		if custom {
			if len(ps) > 0 {
				continue
			}
			ps = sortProblems(n.custom(m.value(), "$"))
		}
		if len(ps) == 0 {
			return nil
		}
		if first == nil {
			for _, p := range ps {
				first = append(first, problemText(what, p))
			}
		}
	}
	return first
}

func checkSchema(c *conversation) []finding {
	return schemaFindings(c, false)
}

func checkCustom(c *conversation) []finding {
	return schemaFindings(c, true)
}

func schemaFindings(c *conversation, custom bool) []finding {
	var out []finding
	for _, m := range c.msgs {
		if !m.Agent || m.kind == invalid {
			continue
		}
		for _, msg := range verdict(m, custom) {
			out = append(out, finding{m, msg})
		}
	}
	return out
}

// problemText is a schema problem as a sentence: where, what, and the
// schema's description of what belongs there.
func problemText(what string, p problem) string {
	s := what + ": " + p.path + ": " + p.msg
	if d := firstLine(p.desc); d != "" {
		s += " (the schema: " + d + ")"
	}
	return s
}

// firstLine is the first paragraph of a schema description, on one line.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n\n")
	return strings.Join(strings.Fields(s), " ")
}

// describe names a request for messages: "session/prompt (id 3)".
func describe(m *message) string {
	return fmt.Sprintf("%s (id %s)", m.method, m.id)
}

func checkAnswered(c *conversation) []finding {
	var out []finding
	for _, m := range c.msgs {
		switch {
		case !m.Agent && m.kind == request && len(m.answers) == 0:
			out = append(out, finding{nil, "the client's " + describe(m) + " was never answered"})
		case !m.Agent && m.kind == request && len(m.answers) > 1:
			for _, a := range m.answers[1:] {
				out = append(out, finding{a, fmt.Sprintf("a second answer to the client's %s, answered on line %d already", describe(m), m.answers[0].N)})
			}
		case m.Agent && m.kind == response && m.request == nil:
			out = append(out, finding{m, fmt.Sprintf("an answer to id %s, which the client never sent to this agent process", m.id)})
		}
	}
	return out
}

// checkKnownSession reports the agent's notifications and requests that
// name a session the client was not told of before: a session/new or
// session/fork result, or the client's session/load or session/resume.
func checkKnownSession(c *conversation) []finding {
	known := map[string]bool{}
	var out []finding
	for _, m := range c.msgs {
		if id := introduced(m); id != "" {
			known[id] = true
			continue
		}
		if !m.Agent || m.kind == invalid || m.kind == response || isExtension(m.method) {
			continue
		}
		if id := m.session(); id != "" && !known[id] {
			out = append(out, finding{m, fmt.Sprintf("%s names session %q, which the agent never created and the client never loaded or resumed", m.method, id)})
		}
	}
	return out
}

// introduced is the session id m makes known to the client: the result of
// session/new or session/fork, or the session of a session/load or
// session/resume request; "" for any other message.
func introduced(m *message) string {
	switch {
	case m.Agent && m.ok() && (m.answered() == "session/new" || m.answered() == "session/fork"):
		return m.session()
	case !m.Agent && m.kind == request && (m.method == "session/load" || m.method == "session/resume"):
		return m.session()
	}
	return ""
}

func checkUniqueSession(c *conversation) []finding {
	seen := map[string]int{} // session id → the stdout line that first named it
	var out []finding
	for _, m := range c.msgs {
		id := introduced(m)
		if id == "" {
			continue
		}
		if line, ok := seen[id]; ok && m.Agent {
			out = append(out, finding{m, fmt.Sprintf("%s answered session id %q, which this run had already (line %d)", m.answered(), id, line)})
			continue
		}
		if _, ok := seen[id]; !ok {
			seen[id] = m.N
		}
	}
	return out
}

func checkAnnouncedToolCall(c *conversation) []finding {
	announced := map[string]map[string]bool{} // session → tool call ids
	announce := func(s, id string) {
		if announced[s] == nil {
			announced[s] = map[string]bool{}
		}
		announced[s][id] = true
	}
	var out []finding
	for _, m := range c.msgs {
		switch {
		case m.Agent && m.kind == request && m.method == "session/request_permission":
			// The client learns of a tool call from the permission asked
			// for it too (Zed shows it from there).
			var p struct {
				SessionID string `json:"sessionId"`
				ToolCall  struct {
					ID string `json:"toolCallId"`
				} `json:"toolCall"`
			}
			json.Unmarshal(m.params, &p)
			announce(p.SessionID, p.ToolCall.ID)
		case m.Agent && m.kind == notification && m.method == "session/update":
			kind, u := updateOf(m)
			id, _ := u["toolCallId"].(string)
			s := m.session()
			switch {
			case kind == "tool_call":
				announce(s, id)
			case kind == "tool_call_update" && !announced[s][id]:
				out = append(out, finding{m, fmt.Sprintf("tool_call_update of tool call %q, which no tool_call (nor session/request_permission) of session %q announced before", id, s)})
			}
		}
	}
	return out
}

// turn kinds are the session/update kinds of a prompt turn's content: what
// a cancelled turn must send before its answer, a load before its answer,
// and a resume never.
var turnKinds = []string{"user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan"}

// cancelledPrompts are the client's session/prompt requests it cancelled:
// a session/cancel, or a session/close of its session, sent before the
// prompt's answer.
func cancelledPrompts(c *conversation) map[*message]bool {
	pending := map[string][]*message{} // session → prompts not answered yet
	out := map[*message]bool{}
	for _, m := range c.msgs {
		switch {
		case !m.Agent && m.kind == request && m.method == "session/prompt":
			s := m.session()
			pending[s] = append(pending[s], m)
		case !m.Agent && (m.method == "session/cancel" && m.kind == notification || m.method == "session/close" && m.kind == request):
			for _, p := range pending[m.session()] {
				out[p] = true
			}
		case m.Agent && m.kind == response && m.answered() == "session/prompt":
			s := m.request.session()
			pending[s] = slices.DeleteFunc(pending[s], func(p *message) bool { return p == m.request })
		}
	}
	return out
}

func checkCancelled(c *conversation) []finding {
	cancelled := cancelledPrompts(c)
	var out []finding
	for _, m := range c.agent(response) {
		if m.answered() != "session/prompt" || !cancelled[m.request] {
			continue
		}
		if m.err != nil {
			out = append(out, finding{m, fmt.Sprintf("the client cancelled %s, and the agent answered an error, not stopReason \"cancelled\"", describe(m.request))})
			continue
		}
		var r struct {
			StopReason string `json:"stopReason"`
		}
		json.Unmarshal(m.result, &r)
		if r.StopReason != "cancelled" {
			out = append(out, finding{m, fmt.Sprintf("the client cancelled %s, and the agent answered stopReason %q", describe(m.request), r.StopReason)})
		}
	}
	return out
}

// quietAfter reports the agent's session/update of a turn kind for a
// session after a point where the session must be quiet (ends returns its
// session) until the client next asks anything of that session.
func quietAfter(c *conversation, ends func(m *message) string, why func(kind string, end *message) string) []finding {
	quiet := map[string]*message{} // session → the message that began its quiet
	var out []finding
	for _, m := range c.msgs {
		if s := ends(m); s != "" {
			quiet[s] = m
			continue
		}
		if !m.Agent && m.kind == request {
			delete(quiet, m.session())
			continue
		}
		if !m.Agent || m.method != "session/update" {
			continue
		}
		kind, _ := updateOf(m)
		if end := quiet[m.session()]; end != nil && slices.Contains(turnKinds, kind) {
			out = append(out, finding{m, why(kind, end)})
		}
	}
	return out
}

func checkAfterCancelled(c *conversation) []finding {
	cancelled := cancelledPrompts(c)
	return quietAfter(c, func(m *message) string {
		if m.Agent && m.kind == response && cancelled[m.request] {
			return m.request.session()
		}
		return ""
	}, func(kind string, end *message) string {
		return fmt.Sprintf("a %s after the agent answered the cancelled %s (line %d)", kind, describe(end.request), end.N)
	})
}

func checkLoadReplay(c *conversation) []finding {
	return quietAfter(c, func(m *message) string {
		if m.Agent && m.ok() && m.answered() == "session/load" {
			return m.request.session()
		}
		return ""
	}, func(kind string, end *message) string {
		return fmt.Sprintf("a %s after the agent answered %s (line %d): the replay comes before the answer", kind, describe(end.request), end.N)
	})
}

func checkResume(c *conversation) []finding {
	resuming := map[string]*message{} // session → its session/resume not answered yet
	var out []finding
	for _, m := range c.msgs {
		switch {
		case !m.Agent && m.kind == request && m.method == "session/resume":
			resuming[m.session()] = m
		case m.Agent && m.kind == response && m.answered() == "session/resume":
			delete(resuming, m.request.session())
		case m.Agent && m.method == "session/update":
			kind, _ := updateOf(m)
			if r := resuming[m.session()]; r != nil && slices.Contains(turnKinds, kind) {
				out = append(out, finding{m, fmt.Sprintf("a %s before the agent answered %s: a replay of the history", kind, describe(r))})
			}
		}
	}
	return out
}

// capabilities are the client's capabilities of each incarnation, from its
// initialize request.
func capabilities(c *conversation) map[int]map[string]bool {
	out := map[int]map[string]bool{}
	for _, m := range c.msgs {
		if m.Agent || m.kind != request || m.method != "initialize" {
			continue
		}
		var p struct {
			Caps struct {
				FS struct {
					Read  bool `json:"readTextFile"`
					Write bool `json:"writeTextFile"`
				} `json:"fs"`
				Terminal bool `json:"terminal"`
			} `json:"clientCapabilities"`
		}
		json.Unmarshal(m.params, &p)
		out[m.Start] = map[string]bool{"fs/read_text_file": p.Caps.FS.Read, "fs/write_text_file": p.Caps.FS.Write, "terminal": p.Caps.Terminal}
	}
	return out
}

// capabilityOf names the capability an agent request needs; "" for none.
func capabilityOf(method string) string {
	switch {
	case method == "fs/read_text_file" || method == "fs/write_text_file":
		return method
	case strings.HasPrefix(method, "terminal/"):
		return "terminal"
	}
	return ""
}

// checkCapability reports the agent's requests of the methods that need
// a capability name for which want is true, when the client did not
// advertise it.
func checkCapability(c *conversation, want func(capability string) bool, advertised map[string]string) []finding {
	caps := capabilities(c)
	var out []finding
	for _, m := range c.agent(request) {
		cp := capabilityOf(m.method)
		if cp == "" || !want(cp) || caps[m.Start][cp] {
			continue
		}
		out = append(out, finding{m, fmt.Sprintf("%s, but the client's initialize did not set clientCapabilities.%s", m.method, advertised[cp])})
	}
	return out
}

var capabilityNames = map[string]string{"fs/read_text_file": "fs.readTextFile", "fs/write_text_file": "fs.writeTextFile", "terminal": "terminal"}

func checkFSCapability(c *conversation) []finding {
	return checkCapability(c, func(cp string) bool { return cp != "terminal" }, capabilityNames)
}

func checkTerminalCapability(c *conversation) []finding {
	return checkCapability(c, func(cp string) bool { return cp == "terminal" }, capabilityNames)
}

func checkKnownTerminal(c *conversation) []finding {
	created, released := map[string]bool{}, map[string]int{}
	var out []finding
	for _, m := range c.msgs {
		switch {
		case !m.Agent && m.ok() && m.answered() == "terminal/create":
			var r struct {
				ID string `json:"terminalId"`
			}
			json.Unmarshal(m.result, &r)
			created[r.ID] = true
			delete(released, r.ID)
		case m.Agent && m.kind == request && strings.HasPrefix(m.method, "terminal/") && m.method != "terminal/create":
			var p struct {
				ID string `json:"terminalId"`
			}
			json.Unmarshal(m.params, &p)
			switch {
			case !created[p.ID]:
				out = append(out, finding{m, fmt.Sprintf("%s of terminal %q, which no terminal/create returned", m.method, p.ID)})
			case released[p.ID] > 0:
				out = append(out, finding{m, fmt.Sprintf("%s of terminal %q, released on line %d", m.method, p.ID, released[p.ID])})
			case m.method == "terminal/release":
				released[p.ID] = m.N
			}
		case m.Agent && m.method == "session/update":
			for _, id := range terminalsShown(m) {
				if !created[id] {
					out = append(out, finding{m, fmt.Sprintf("tool call content shows terminal %q, which no terminal/create returned", id)})
				}
			}
		}
	}
	return out
}

// terminalsShown are the terminal ids of a tool call update's terminal
// content.
func terminalsShown(m *message) []string {
	_, u := updateOf(m)
	items, _ := u["content"].([]any)
	var out []string
	for _, it := range items {
		if c, ok := it.(map[string]any); ok && c["type"] == "terminal" {
			id, _ := c["terminalId"].(string)
			out = append(out, id)
		}
	}
	return out
}

func checkAbsolutePaths(c *conversation) []finding {
	var out []finding
	for _, m := range c.msgs {
		if !m.Agent || m.kind == invalid || m.kind == response {
			continue
		}
		for _, p := range pathsOf(m) {
			if p.path != "" && !isAbs(p.path) {
				out = append(out, finding{m, fmt.Sprintf("%s %q is not absolute", p.where, p.path)})
			}
		}
	}
	return out
}

type pathAt struct{ where, path string }

// pathsOf are the file paths an agent message carries: the path of
// fs/*, the cwd of terminal/create, the locations of a tool call.
func pathsOf(m *message) []pathAt {
	switch m.method {
	case "fs/read_text_file", "fs/write_text_file":
		var p struct {
			Path string `json:"path"`
		}
		json.Unmarshal(m.params, &p)
		return []pathAt{{m.method + " path", p.Path}}
	case "terminal/create":
		var p struct {
			Cwd string `json:"cwd"`
		}
		json.Unmarshal(m.params, &p)
		return []pathAt{{"terminal/create cwd", p.Cwd}}
	case "session/update":
		kind, u := updateOf(m)
		locs, _ := u["locations"].([]any)
		var out []pathAt
		for _, l := range locs {
			if lm, ok := l.(map[string]any); ok {
				p, _ := lm["path"].(string)
				out = append(out, pathAt{kind + " location", p})
			}
		}
		return out
	}
	return nil
}

// isAbs reports whether p is an absolute path on a POSIX system or on
// Windows (C:\…, \\server\…), whatever the system checking it.
func isAbs(p string) bool {
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\\`) {
		return true
	}
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') &&
		(p[0] >= 'A' && p[0] <= 'Z' || p[0] >= 'a' && p[0] <= 'z')
}

func checkPermissionOptions(c *conversation) []finding {
	var out []finding
	for _, m := range c.agent(request) {
		if m.method != "session/request_permission" {
			continue
		}
		var p struct {
			Options []struct {
				ID string `json:"optionId"`
			} `json:"options"`
		}
		json.Unmarshal(m.params, &p)
		if len(p.Options) == 0 {
			out = append(out, finding{m, "session/request_permission offers no option to choose"})
		}
		seen := map[string]bool{}
		for _, o := range p.Options {
			if seen[o.ID] {
				out = append(out, finding{m, fmt.Sprintf("session/request_permission offers option %q twice", o.ID)})
			}
			seen[o.ID] = true
		}
	}
	return out
}

func checkModes(c *conversation) []finding {
	available := map[string][]string{} // session → its mode ids
	var out []finding
	for _, m := range c.msgs {
		switch {
		case m.Agent && m.ok() && slices.Contains([]string{"session/new", "session/load", "session/resume", "session/fork"}, m.answered()):
			var r struct {
				SessionID string `json:"sessionId"`
				Modes     *struct {
					Current   string `json:"currentModeId"`
					Available []struct {
						ID string `json:"id"`
					} `json:"availableModes"`
				} `json:"modes"`
			}
			json.Unmarshal(m.result, &r)
			if r.Modes == nil {
				continue
			}
			s := r.SessionID
			if s == "" {
				s = m.request.session()
			}
			var ids []string
			for _, a := range r.Modes.Available {
				if slices.Contains(ids, a.ID) {
					out = append(out, finding{m, fmt.Sprintf("%s lists mode %q twice in availableModes", m.answered(), a.ID)})
				}
				ids = append(ids, a.ID)
			}
			available[s] = ids
			if !slices.Contains(ids, r.Modes.Current) {
				out = append(out, finding{m, fmt.Sprintf("%s answered currentModeId %q, which is not one of availableModes (%s)", m.answered(), r.Modes.Current, strings.Join(ids, ", "))})
			}
		case m.Agent && m.method == "session/update":
			kind, u := updateOf(m)
			ids, ok := available[m.session()]
			if cur, _ := u["currentModeId"].(string); kind == "current_mode_update" && ok && !slices.Contains(ids, cur) {
				out = append(out, finding{m, fmt.Sprintf("current_mode_update to %q, which is not one of the session's availableModes (%s)", cur, strings.Join(ids, ", "))})
			}
		}
	}
	return out
}
