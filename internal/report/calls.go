package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
	"github.com/acpsnap/acpsnap/internal/wire/sse"
	"github.com/acpsnap/acpsnap/model"
)

// composedCalls reads the model calls of a composed log (docs/format.md,
// "Composed log"), each answer decoded by its dialect's codec as the agent
// read it.
func composedCalls(raw []byte, dialectName, name string, pins *httplog.Pins) ([]Call, error) {
	_, xs, err := httplog.Decompose(raw, name, pins)
	if err != nil {
		return nil, err
	}
	d, err := dialect.Lookup(dialectName)
	if err != nil {
		return nil, fmt.Errorf("%s:1: %w", name, err)
	}
	var calls []Call
	for i, x := range xs {
		c := Call{N: i + 1, Log: filepath.Base(name), Request: requestSummary(x.Request, d.Conversation), Detail: string(x.Request.Body)}
		c.Status = strconv.Itoa(x.Response.Status)
		if x.Response.End != "" {
			c.Status += " (" + x.Response.End + ")"
		}
		c.Response = answer(x.Response, d)
		calls = append(calls, c)
	}
	return calls, nil
}

// answer is what a recorded response said: its text, reasoning and tool
// calls decoded as the agent read them, or the body of an error.
func answer(resp httplog.Response, d *dialect.Dialect) string {
	r := &response{}
	var err error
	switch {
	case resp.Status >= 300:
		return strings.TrimSpace(string(resp.Body))
	case resp.Stream:
		var body []byte
		for _, ev := range resp.Events {
			body = sse.New(ev.Event, string(ev.Data)).AppendTo(body)
		}
		err = d.Codec.Decode(bytes.NewReader(body), r.emit)
	default:
		err = d.Codec.DecodeJSON(resp.Body, r.emit)
	}
	var pe *model.ProviderError
	if errors.As(err, &pe) && r.finish == "" {
		r.finish = "error: " + pe.Code + " " + pe.Message
	}
	return r.String()
}

// requestSummary is one line about a request: method and path, the model,
// how long the conversation is and its last item.
func requestSummary(req httplog.Request, conversation string) string {
	s := req.Method + " " + req.Path
	var body map[string]json.RawMessage
	if json.Unmarshal(req.Body, &body) != nil {
		return s
	}
	var m string
	if json.Unmarshal(body["model"], &m) == nil && m != "" {
		s += " · " + m
	}
	var items []json.RawMessage
	if json.Unmarshal(body[conversation], &items) == nil && len(items) > 0 {
		s += fmt.Sprintf(" · %d items, last: %s", len(items), itemSummary(items[len(items)-1]))
	}
	return s
}

// itemSummary is "role: first text" of a conversation item.
func itemSummary(raw json.RawMessage) string {
	var it struct {
		Role string `json:"role"`
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &it)
	who := it.Role
	if who == "" {
		who = it.Type
	}
	var v any
	_ = json.Unmarshal(raw, &v)
	return oneLine(who+": "+lastText(v), 160)
}

// lastText is the last string under a "text", "content" or "output" key,
// depth first: the words a person typed last, after any reminders an
// agent puts before them.
func lastText(v any) string {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range []string{"text", "content", "output", "arguments"} {
			if s, ok := v[k].(string); ok {
				return s
			}
		}
		for _, k := range []string{"content", "output"} {
			if s := lastText(v[k]); s != "" {
				return s
			}
		}
	case []any:
		for i := len(v) - 1; i >= 0; i-- {
			if s := lastText(v[i]); s != "" {
				return s
			}
		}
	}
	return ""
}

// oneLine is s with its white space runs made single spaces, cut to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// response gathers the chunks of one model answer.
type response struct {
	text, reasoning strings.Builder
	calls           []string // name(arguments)
	finish          string
}

func (r *response) emit(c model.Chunk) error {
	r.add(c)
	return nil
}

func (r *response) add(c model.Chunk) {
	switch c.Type {
	case model.TextDelta:
		r.text.WriteString(c.Text)
	case model.ReasoningDelta:
		r.reasoning.WriteString(c.Text)
	case model.ToolCallDelta:
		if c.Name != "" || len(r.calls) == 0 {
			r.calls = append(r.calls, c.Name+"(")
		}
		r.calls[len(r.calls)-1] += c.ArgumentsDelta
	case model.Finish:
		r.finish = c.Reason
		if c.Error != "" {
			r.finish += ": " + strings.TrimSpace(c.Code+" "+c.Error)
		}
	}
}

// status is the finish reason, or "no finish" for an answer that broke off.
func (r *response) status() string {
	if r.finish == "" {
		return "no finish"
	}
	return r.finish
}

func (r *response) String() string {
	var parts []string
	if s := r.reasoning.String(); s != "" {
		parts = append(parts, "thinking: "+s)
	}
	if s := r.text.String(); s != "" {
		parts = append(parts, s)
	}
	for _, c := range r.calls {
		parts = append(parts, "→ "+c+")")
	}
	if r.finish != "" && !strings.HasPrefix(r.finish, "stop") && !strings.HasPrefix(r.finish, "tool-calls") {
		parts = append(parts, "finish: "+r.finish)
	}
	return strings.Join(parts, "\n")
}

func itoa(n int) string { return strconv.Itoa(n) }
