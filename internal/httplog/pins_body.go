package httplog

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/internal/wire/dialect"
)

// Where the values sit in a request body: the "tools" member in every
// dialect; the system prompt where the dialect table says
// (dialect.Dialect.System: messages[0].content of a system or developer
// message in openai-chat, "instructions" in openai-responses), when it is
// a JSON string. A value is pinned only when its bytes are exactly what
// the pin restores (a compact tools value, a string in its plain JSON
// encoding), it is not empty, and it occurs once in the body; anything
// else stays inline, so reading is always exact.

// pin replaces the system prompt and the tools of body by their
// placeholders, which p keeps; p nil pins nothing.
func (p *Pins) pin(d *dialect.Dialect, body []byte) []byte {
	if p == nil {
		return body
	}
	system, tools := pinnable(d, body)
	if system != nil {
		body = p.replace(body, PinSystem, quote(*system), []byte(*system))
	}
	if tools != nil {
		body = p.replace(body, PinTools, tools, tools)
	}
	return body
}

// replace replaces raw (the JSON of the value v of kind) in body by its
// placeholder when that is exact (replaceOnce), and only then pins v.
func (p *Pins) replace(body []byte, kind string, raw, v []byte) []byte {
	out, ok := replaceOnce(body, raw, quote(placeholder(kind, p.hash(kind, v))))
	if ok {
		p.Pin(kind, v)
	}
	return out
}

// pinnable returns the system prompt and the tools value of body in the
// form a pin restores exactly (the prompt as a string in its plain JSON
// encoding, the tools compact), each nil when body has none in that form
// or it is empty, or the body cannot be pinned at all.
func pinnable(d *dialect.Dialect, body []byte) (system *string, tools []byte) {
	// Only a body stored as JSON is expanded on reading, and one with a
	// placeholder of its own would not expand exactly.
	if !embeddable(body) || bytes.Contains(body, pinMark) {
		return nil, nil
	}
	ms, ok := objectMembers(body)
	if !ok {
		return nil, nil
	}
	var s string
	if raw := systemValue(d, body); raw != nil && json.Unmarshal(raw, &s) == nil && !EmptyValue(raw) && bytes.Equal(quote(s), raw) {
		system = &s
	}
	var c bytes.Buffer
	if raw := memberValue(ms, "tools"); raw != nil && json.Compact(&c, raw) == nil && bytes.Equal(c.Bytes(), raw) && !EmptyValue(raw) {
		tools = raw
	}
	return system, tools
}

// EmptyValue reports whether the JSON value raw is one a pin never holds:
// null, [], {} or "" (it would pin nothing).
func EmptyValue(raw []byte) bool {
	switch string(bytes.TrimSpace(raw)) {
	case "null", "[]", "{}", `""`:
		return true
	}
	return false
}

// replaceOnce replaces old by repl in b when old occurs exactly once and
// repl not at all, so that the inverse replacement is exact; false: b
// as it was.
func replaceOnce(b, old, repl []byte) ([]byte, bool) {
	if bytes.Count(b, old) != 1 || bytes.Contains(b, repl) {
		return b, false
	}
	return bytes.Replace(b, old, repl, 1), true
}

func memberValue(ms []member, key string) []byte {
	for _, m := range ms {
		if m.Key == key {
			return m.Raw
		}
	}
	return nil
}

// systemValue returns the raw system prompt of a request body where d
// keeps it (Dialect.System, SystemRoles), or nil.
func systemValue(d *dialect.Dialect, body []byte) []byte {
	if d == nil || d.System == "" {
		return nil
	}
	steps := strings.Split(d.System[1:], "/")
	holder := body
	for _, step := range steps[:len(steps)-1] {
		if holder = childValue(holder, step); holder == nil {
			return nil
		}
	}
	ms, ok := objectMembers(holder)
	if !ok {
		return nil
	}
	if len(d.SystemRoles) > 0 && !slices.Contains(d.SystemRoles, unquoted(memberValue(ms, "role"))) {
		return nil
	}
	return memberValue(ms, steps[len(steps)-1])
}

// childValue is the member key of an object, or the element at index key
// of an array; nil when there is none.
func childValue(raw []byte, key string) []byte {
	if ms, ok := objectMembers(raw); ok {
		return memberValue(ms, key)
	}
	i, err := strconv.Atoi(key)
	es, ok := arrayElements(raw)
	if err != nil || !ok || i < 0 || i >= len(es) {
		return nil
	}
	return es[i]
}

// unquoted is the string a raw JSON string holds; "" for any other value.
func unquoted(raw []byte) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}
