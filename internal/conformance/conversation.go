package conformance

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Line is one message of a run between the client and the agent.
type Line struct {
	// Agent: the agent wrote it (its stdout); false: the client did (the
	// agent's stdin).
	Agent bool
	// N is an agent line's number on the run's stdout (1-based, counted
	// across restarts); 0 for a client line.
	N int
	// Start is the incarnation of the agent the line belongs to (0: the
	// first; each restartAgent step starts the next). Request ids are the
	// connection's, so they pair within one incarnation only.
	Start int
	// Raw is the line as written, without "\n".
	Raw []byte
}

// kind is what a JSON-RPC message is.
type kind int

const (
	invalid kind = iota
	request
	notification
	response
)

// message is one parsed line.
type message struct {
	Line
	kind   kind
	id     string // the id as canonical JSON ("1", "\"a\""); "" when absent
	method string
	params json.RawMessage
	result json.RawMessage
	err    json.RawMessage
	bad    string // invalid: why this is no JSON-RPC 2.0 message

	// pairing, within one incarnation
	request *message   // a response: the request it answers; nil: none
	answers []*message // a request: its responses, in order

	decoded bool
	val     any // params, or a response's result or error, decoded once (value)
	// checked are the problems each schema found (by its place in
	// schemas), computed once for the schema and the custom-field rules.
	checked map[*schema][]problem
}

// problems are the problems schema n of s finds in the message's payload,
// sorted, computed once.
func (m *message) problems(s *schema, n *node) []problem {
	if ps, ok := m.checked[s]; ok {
		return ps
	}
	if m.checked == nil {
		m.checked = map[*schema][]problem{}
	}
	ps := sortProblems(n.check(m.value(), "$"))
	m.checked[s] = ps
	return ps
}

// value is the message's payload decoded with numbers kept as written:
// the params of a request or notification, the result or the error of a
// response; nil when it has none. It is decoded once.
func (m *message) value() any {
	if !m.decoded {
		m.decoded = true
		raw := m.params
		if m.kind == response {
			raw = m.result
			if m.err != nil {
				raw = m.err
			}
		}
		m.val = decode(raw)
	}
	return m.val
}

// session is the sessionId of the message's payload; "" when none.
func (m *message) session() string {
	p, _ := m.value().(map[string]any)
	s, _ := p["sessionId"].(string)
	return s
}

// conversation is a run's lines parsed and paired: what every rule reads.
type conversation struct {
	msgs []*message
}

// parse reads lines into a conversation: each line's JSON-RPC shape, then
// each response paired with the request of its id sent earlier by the
// other side in the same incarnation.
func parse(lines []Line) *conversation {
	c := &conversation{msgs: make([]*message, len(lines))}
	type pending struct {
		start int
		agent bool // who sent the request
		id    string
	}
	open := map[pending]*message{}
	for i, l := range lines {
		m := parseLine(l)
		c.msgs[i] = m
		switch m.kind {
		case request:
			open[pending{l.Start, l.Agent, m.id}] = m
		case response:
			if req := open[pending{l.Start, !l.Agent, m.id}]; req != nil {
				m.request = req
				req.answers = append(req.answers, m)
			}
		}
	}
	return c
}

// parseLine reads one line's JSON-RPC 2.0 shape.
func parseLine(l Line) *message {
	m := &message{Line: l}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(l.Raw, &raw); err != nil {
		m.bad = "not a JSON object"
		return m
	}
	var version string
	if json.Unmarshal(raw["jsonrpc"], &version) != nil || version != "2.0" {
		m.bad = `"jsonrpc" is not "2.0"`
		return m
	}
	if id, ok := raw["id"]; ok {
		m.id = canonical(id)
	}
	// The members as slices of the line itself, not the copies Unmarshal
	// made: a run's messages are held for the whole check, and a large
	// output must not be held twice.
	m.params, m.result, m.err = within(l.Raw, raw["params"]), within(l.Raw, raw["result"]), within(l.Raw, raw["error"])
	_, hasResult := raw["result"]
	_, hasError := raw["error"]
	meth, hasMethod := raw["method"]
	switch {
	case hasMethod:
		if json.Unmarshal(meth, &m.method) != nil || m.method == "" {
			m.bad = `"method" is not a non-empty string`
			return m
		}
		if hasResult || hasError {
			m.bad = `a request or notification with "result" or "error"`
			return m
		}
		m.kind = notification
		if _, ok := raw["id"]; ok {
			m.kind = request
		}
	case hasResult && hasError:
		m.bad = `a response with both "result" and "error"`
	case !hasResult && !hasError:
		m.bad = `neither a request ("method"), nor a response ("result" or "error")`
	case m.id == "":
		m.bad = `a response without "id"`
	default:
		m.kind = response
	}
	return m
}

// canonical is raw JSON compacted, so "1" and " 1" are one id.
func canonical(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// answered is the method of the request a response answers; "" when none.
func (m *message) answered() string {
	if m.request == nil {
		return ""
	}
	return m.request.method
}

// ok reports whether m is a response with a result.
func (m *message) ok() bool { return m.kind == response && m.result != nil }

// updateOf is the update of a session/update notification: its kind
// (sessionUpdate) and the whole update.
func updateOf(m *message) (kind string, u map[string]any) {
	p, _ := m.value().(map[string]any)
	u, _ = p["update"].(map[string]any)
	kind, _ = u["sessionUpdate"].(string)
	return kind, u
}

// decode reads raw JSON with numbers kept as written; absent is null.
func decode(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	d.Decode(&v)
	return shortened(v)
}

// maxKept is the longest string a decoded payload keeps: no rule reads
// further into a text (the schema gives no string a length or a pattern
// long text could break), and a run's decoded messages are held for the
// whole check.
const maxKept = 4 << 10

// shortened is v with every string longer than maxKept cut to its first
// maxKept bytes, at a character's start.
func shortened(v any) any {
	switch t := v.(type) {
	case string:
		if len(t) <= maxKept {
			return t
		}
		n := maxKept
		for n > 0 && !utf8.RuneStart(t[n]) {
			n--
		}
		return strings.Clone(t[:n])
	case map[string]any:
		for k, e := range t {
			t[k] = shortened(e)
		}
	case []any:
		for i, e := range t {
			t[i] = shortened(e)
		}
	}
	return v
}

// within is the bytes of member, a copy of part of line, as line's own
// slice (the same bytes mean the same value wherever they are); nil: nil.
func within(line []byte, member json.RawMessage) json.RawMessage {
	if member == nil {
		return nil
	}
	if i := bytes.Index(line, member); i >= 0 {
		return line[i : i+len(member) : i+len(member)]
	}
	return member
}

// isExtension reports whether method is an extension method (its name
// starts with "_"), which the schema does not describe.
func isExtension(method string) bool { return strings.HasPrefix(method, "_") }
