package probe

import (
	"fmt"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/console"
)

// summaryLen bounds each part of a call's summary.
const summaryLen = 60

// extraCalls lists, per run, the calls the scripted model had no entry
// for, with when they arrived.
func extraCalls(runs []Run) []Extra {
	var out []Extra
	for i, r := range runs {
		for j, c := range r.Calls {
			if c.Served {
				continue
			}
			out = append(out, Extra{Run: i + 1, Position: j + 1, Path: console.Line(c.Path), Summary: summary(c.Body),
				When: stepBefore(r.Steps, c.At), WithTurn: concurrent(r.Calls, c.At)})
		}
	}
	return out
}

// stepBefore names the last step that began before at.
func stepBefore(steps []Step, at time.Duration) string {
	when := "before the first step"
	for i, s := range steps {
		if s.Start <= at {
			when = fmt.Sprintf("after step %d (%s) began", i+1, s.Op)
		}
	}
	return when
}

// concurrent reports whether a served call was being answered at at.
func concurrent(calls []Call, at time.Duration) bool {
	for _, c := range calls {
		if c.Served && c.At <= at && (c.Done == 0 || at < c.Done) {
			return true
		}
	}
	return false
}

// summary is the start of a request's system prompt and of its last user
// message, in any of the three dialects' shapes.
func summary(body []byte) string {
	v, err := decode(body)
	m, _ := v.(map[string]any)
	if err != nil || m == nil {
		return clip(string(body))
	}
	var parts []string
	if sys := systemText(m); sys != "" {
		parts = append(parts, "system: "+clip(sys))
	}
	if u := lastUser(m); u != "" {
		parts = append(parts, "user: "+clip(u))
	}
	if len(parts) == 0 {
		return clip(string(body))
	}
	return strings.Join(parts, " · ")
}

// systemText is anthropic's system, openai-responses' instructions, or
// the first system or developer message of openai-chat.
func systemText(m map[string]any) string {
	for _, k := range []string{"system", "instructions"} {
		if t := text(m[k]); t != "" {
			return t
		}
	}
	for _, msg := range messages(m) {
		if r := msg["role"]; r == "system" || r == "developer" {
			return text(msg["content"])
		}
	}
	return ""
}

func lastUser(m map[string]any) string {
	msgs := messages(m)
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i]["role"] == "user" {
			if t := text(msgs[i]["content"]); t != "" {
				return t
			}
		}
	}
	return ""
}

// messages are the body's messages (chat, anthropic) or input items
// (responses).
func messages(m map[string]any) []map[string]any {
	var out []map[string]any
	for _, k := range []string{"messages", "input"} {
		list, _ := m[k].([]any)
		for _, x := range list {
			if msg, ok := x.(map[string]any); ok {
				out = append(out, msg)
			}
		}
	}
	return out
}

// text is a string, or the text parts of a content array joined.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, p := range x {
			if pm, ok := p.(map[string]any); ok {
				if t, ok := pm["text"].(string); ok {
					parts = append(parts, t)
				}
			}
		}
		return strings.Join(parts, " ")
	}
	return ""
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > summaryLen {
		s = string(r[:summaryLen-1]) + "…"
	}
	return console.Line(s)
}
