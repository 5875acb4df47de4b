package subagent

import (
	"fmt"
	"sort"
	"strings"
)

// Root is the topology path of the cassette's one top-level parent.
const Root = "root"

// Parent is what the child's caller can observe of the parent agent at
// the moment it starts the child. Everything but Path goes into the
// parent-context fingerprint; Path places the call in the topology.
type Parent struct {
	// Path is the parent's topology path: "" or Root for the top-level
	// agent, else the Key of the call that started this parent (a child
	// starting children of its own).
	Path string
	// Options are the parent agent's options (any JSON value; nil: none).
	Options any
	// Cwd is the parent's working directory as a stable token ("$CWD"),
	// never an absolute path that differs between machines.
	Cwd string
	// Depth is the delegation depth: 0 for the top-level agent.
	Depth int
	// PermissionMode is the parent's permission mode ("default", "ask" …).
	PermissionMode string
	// Tools is the parent's tool set; its order does not matter.
	Tools []string
	// InheritsContext says the child starts from the parent's
	// conversation; Messages is then part of the fingerprint.
	InheritsContext bool
	// Messages is the model-visible message prefix of the parent's
	// completed turns (any JSON values, e.g. chat messages). Volatile ids
	// are removed and tool-call ids renumbered before hashing (see
	// NormalizeMessages). Ignored unless InheritsContext.
	Messages []any
}

// Request is what the parent asks of the child.
type Request struct {
	Label        string   // the child's label ("explore", "review" …); required
	Prompt       string   // the child's prompt
	Options      any      // the child's options (any JSON value; nil: none)
	OutputSchema any      // the JSON schema the result must follow (nil: none)
	ToolFilter   []string // the tools the child may use (nil: all); order kept
}

// contextView is the canonical JSON of a Parent that is hashed.
type contextView struct {
	Options         any      `json:"options"`
	Cwd             string   `json:"cwd"`
	Depth           int      `json:"depth"`
	PermissionMode  string   `json:"permissionMode"`
	Tools           []string `json:"tools"`
	InheritsContext bool     `json:"inheritsContext"`
	Messages        []any    `json:"messages,omitempty"`
}

// ContextFingerprint is "sha256:"+hex of the canonical JSON of the parent's
// observable context (not its Path).
func ContextFingerprint(p Parent) (string, error) {
	tools := append([]string{}, p.Tools...)
	sort.Strings(tools)
	v := contextView{Options: p.Options, Cwd: p.Cwd, Depth: p.Depth, PermissionMode: p.PermissionMode, Tools: tools, InheritsContext: p.InheritsContext}
	if p.InheritsContext {
		msgs, err := NormalizeMessages(p.Messages)
		if err != nil {
			return "", err
		}
		v.Messages = msgs
		if v.Messages == nil {
			v.Messages = []any{}
		}
	}
	fp, err := fingerprint(v)
	if err != nil {
		return "", fmt.Errorf("parent context: %w", err)
	}
	return fp, nil
}

// requestView is the canonical JSON of a Request that is hashed.
type requestView struct {
	Label        string   `json:"label"`
	Prompt       string   `json:"prompt"`
	Options      any      `json:"options"`
	OutputSchema any      `json:"outputSchema"`
	ToolFilter   []string `json:"toolFilter"`
}

// RequestFingerprint is "sha256:"+hex of the request's canonical JSON,
// computed before any redaction.
func RequestFingerprint(r Request) (string, error) {
	fp, err := fingerprint(requestView{r.Label, r.Prompt, r.Options, r.OutputSchema, r.ToolFilter})
	if err != nil {
		return "", fmt.Errorf("request: %w", err)
	}
	return fp, nil
}

// CallKey is the topology path of one child call:
// "<parent>/<label>-<12 hex>~<occurrence>". The hex digits come from the
// SHA-256 of the two fingerprints, so a key names one occurrence group;
// characters of the label outside [A-Za-z0-9._] become "_".
func CallKey(parent, label, contextFP, requestFP string, occurrence int) string {
	if parent == "" {
		parent = Root
	}
	h := strings.TrimPrefix(digest([]byte(contextFP+"\n"+requestFP)), "sha256:")
	return fmt.Sprintf("%s/%s-%s~%d", parent, keyLabel(label), h[:12], occurrence)
}

func keyLabel(label string) string {
	var b strings.Builder
	for _, r := range label {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// volatileKeys are the message members NormalizeMessages removes: ids and
// clocks that differ between two runs of the same conversation.
var volatileKeys = map[string]bool{
	"id": true, "messageId": true, "message_id": true, "sessionId": true, "session_id": true,
	"created": true, "createdAt": true, "created_at": true, "timestamp": true,
}

// toolCallKeys are the members whose string value is a tool-call id.
var toolCallKeys = map[string]bool{
	"tool_call_id": true, "toolCallId": true, "tool_use_id": true, "toolUseId": true, "call_id": true, "callId": true,
}

// NormalizeMessages returns msgs with volatile ids removed and tool-call
// ids renumbered "call-1", "call-2" … in order of first appearance, the
// same original id always mapping to the same number so that a call and
// its result stay paired. A tool-call id is the value of a member named
// tool_call_id, toolCallId, tool_use_id, toolUseId, call_id or callId, and
// the "id" of an object that is an element of a "tool_calls"/"toolCalls"
// array or whose "type" is "function", "tool_use" or "tool_call". Other
// members named id, messageId, message_id, sessionId, session_id, created,
// createdAt, created_at or timestamp are removed.
func NormalizeMessages(msgs []any) ([]any, error) {
	if msgs == nil {
		return nil, nil
	}
	tree, err := toTree(msgs)
	if err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	n := &renumber{ids: map[string]string{}}
	out, _ := n.walk(tree, false).([]any)
	return out, nil
}

type renumber struct{ ids map[string]string }

func (n *renumber) id(old string) string {
	if id, ok := n.ids[old]; ok {
		return id
	}
	id := fmt.Sprintf("call-%d", len(n.ids)+1)
	n.ids[old] = id
	return id
}

// walk visits keys in sorted order so that numbering is deterministic
// within one object; across objects it follows document order.
func (n *renumber) walk(v any, inToolCalls bool) any {
	switch t := v.(type) {
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = n.walk(e, inToolCalls)
		}
		return out
	case map[string]any:
		return n.object(t, inToolCalls)
	}
	return v
}

func (n *renumber) object(m map[string]any, inToolCalls bool) map[string]any {
	typ, _ := m["type"].(string)
	isCall := inToolCalls || typ == "function" || typ == "tool_use" || typ == "tool_call"
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := map[string]any{}
	for _, k := range keys {
		v := m[k]
		s, isStr := v.(string)
		switch {
		case isStr && (toolCallKeys[k] || (k == "id" && isCall)):
			out[k] = n.id(s)
		case volatileKeys[k]:
			// dropped
		default:
			out[k] = n.walk(v, k == "tool_calls" || k == "toolCalls")
		}
	}
	return out
}

// identity is a call's place and fingerprints.
type identity struct {
	parent, label, context, request string
	inherits                        bool
}

func (id identity) group() group { return group{id.parent, id.context, id.request} }

func identify(p Parent, r Request) (identity, error) {
	if r.Label == "" {
		return identity{}, fmt.Errorf("subagent cassette: request: empty label")
	}
	c, err := ContextFingerprint(p)
	if err != nil {
		return identity{}, fmt.Errorf("subagent cassette: %w", err)
	}
	q, err := RequestFingerprint(r)
	if err != nil {
		return identity{}, fmt.Errorf("subagent cassette: %w", err)
	}
	path := p.Path
	if path == "" {
		path = Root
	}
	return identity{parent: path, label: r.Label, context: c, request: q, inherits: p.InheritsContext}, nil
}
