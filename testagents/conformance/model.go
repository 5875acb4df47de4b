package conformance

// This file is the agent's model client: the request body of each
// dialect, the key in the dialect's header, and the decode of an answer
// with the dialect's codec.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/wire/dialect"
	"github.com/acpsnap/acpsnap/model"
	acp "github.com/coder/acp-go-sdk"
)

// reply is what one model call answered.
type reply struct {
	text  string
	calls []toolCall
}

// callThen makes one streamed model call with conv and collects the
// answer, calling headers once the response's headers came; a session
// streams its text to the client as it comes. An HTTP error's body is the
// error's text, verbatim.
func (a *agent) callThen(ctx context.Context, conv []message, s *session, headers func()) (reply, error) {
	path, body := a.request(conv)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.b.URL+path, bytes.NewReader(body))
	if err != nil {
		return reply{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	a.setKey(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return reply{}, err
	}
	headers()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return reply{}, &httpError{status: resp.StatusCode, body: b}
	}
	var r reply
	calls := map[int]*toolCall{}
	var order []int
	err = a.decode(resp.Body, func(c model.Chunk) error {
		switch c.Type {
		case model.TextDelta:
			if r.text == "" {
				time.Sleep(a.b.SlowText)
			}
			r.text += c.Text
			if s != nil && ctx.Err() == nil {
				a.update(s, acp.UpdateAgentMessageText(c.Text))
			}
		case model.ToolCallDelta:
			tc := calls[c.Index]
			if tc == nil {
				tc = &toolCall{id: c.ID, name: c.Name}
				calls[c.Index] = tc
				order = append(order, c.Index)
			}
			tc.args += c.ArgumentsDelta
		case model.Finish:
			if c.Reason == model.FinishError {
				return fmt.Errorf("%s", c.Error)
			}
		}
		return nil
	})
	for _, i := range order {
		r.calls = append(r.calls, *calls[i])
	}
	return r, err
}

// httpError is a model call answered with an error status.
type httpError struct {
	status int
	body   []byte
}

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %q", e.status, e.body) }

func (a *agent) decode(body io.Reader, emit func(model.Chunk) error) error {
	return a.wire.dialect.Codec.Decode(body, emit)
}

// wireOf is how the agent speaks its dialect: the dialect's entry of the
// table, the path of its streamed model call and the agent's own request.
type wireOf struct {
	dialect *dialect.Dialect
	path    string
	client  client
}

// client is what the agent knows as a client of one dialect that the
// table does not say: how it renders a conversation as a request body, and
// the query its streamed call adds.
type client struct {
	body  func(conv []message, b Behaviour) []byte
	query string
}

// clients has an entry for every dialect of dialect.Table
// (TestClientsCoverTheTable).
var clients = map[string]client{
	"openai-chat":             {body: func(conv []message, b Behaviour) []byte { return chatRequest(conv, b.RequestID, b.Trace) }},
	"openai-responses":        {body: func(conv []message, _ Behaviour) []byte { return responsesRequest(conv) }},
	"anthropic-messages":      {body: func(conv []message, _ Behaviour) []byte { return anthropicRequest(conv) }},
	"gemini-generate-content": {body: func(conv []message, _ Behaviour) []byte { return geminiRequest(conv) }, query: "?alt=sse"},
}

// speak is the wire of the dialect name: its first streamed call endpoint
// ("{model}" is "conformance") and the agent's client of it.
func speak(name string) (wireOf, error) {
	d, err := dialect.Lookup(name)
	if err != nil {
		return wireOf{}, fmt.Errorf("CONF_DIALECT: %w", err)
	}
	c, ok := clients[d.Name]
	if !ok {
		return wireOf{}, fmt.Errorf("CONF_DIALECT: the conformance agent has no client of %s (add one to clients)", d.Name)
	}
	for _, e := range d.Endpoints {
		if e.Kind == dialect.Call && e.Stream != dialect.NotStreamed {
			return wireOf{dialect: d, path: strings.ReplaceAll(e.Path, "{model}", "conformance") + c.query, client: c}, nil
		}
	}
	return wireOf{}, fmt.Errorf("CONF_DIALECT: %s has no streamed model call", d.Name)
}

// toolSchema is the input schema of the one tool the agent offers.
var toolSchema = json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)

// setKey sends the key as the dialect's SDKs do, Gemini's as its REST
// docs show.
func (a *agent) setKey(req *http.Request) {
	switch {
	case a.b.Key == "":
	case a.b.Dialect == "gemini-generate-content":
		q := req.URL.Query()
		q.Set("key", a.b.Key)
		req.URL.RawQuery = q.Encode()
	case a.b.Dialect == "anthropic-messages":
		req.Header.Set("X-Api-Key", a.b.Key)
	default:
		req.Header.Set("Authorization", "Bearer "+a.b.Key)
	}
}

func (a *agent) request(conv []message) (string, []byte) {
	return a.wire.path, a.wire.client.body(conv, a.b)
}

type obj = map[string]any

func chatRequest(conv []message, requestID, trace bool) []byte {
	var msgs []obj
	for _, m := range conv {
		switch {
		case m.role == "tool":
			msgs = append(msgs, obj{"role": "tool", "tool_call_id": m.callID, "content": m.text})
		case len(m.calls) > 0:
			var tcs []obj
			for _, c := range m.calls {
				tcs = append(tcs, obj{"id": c.id, "type": "function", "function": obj{"name": c.name, "arguments": c.args}})
			}
			msgs = append(msgs, obj{"role": "assistant", "content": m.text, "tool_calls": tcs})
		default:
			msgs = append(msgs, obj{"role": m.role, "content": m.text})
		}
	}
	req := obj{"model": "conformance", "stream": true, "messages": msgs,
		"tools": []obj{{"type": "function", "function": obj{"name": "read", "description": "read a file", "parameters": toolSchema}}}}
	if trace {
		req["metadata"] = obj{"trace_id": fmt.Sprint(time.Now().UnixNano())}
	}
	if requestID {
		h := randomHex(16)
		req["user"] = h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
	}
	b, _ := json.Marshal(req)
	return b
}

func responsesRequest(conv []message) []byte {
	var input []obj
	instructions := ""
	for _, m := range conv {
		switch {
		case m.role == "system":
			instructions = m.text
		case m.role == "tool":
			input = append(input, obj{"type": "function_call_output", "call_id": m.callID, "output": m.text})
		case m.role == "assistant":
			if m.text != "" {
				input = append(input, obj{"role": "assistant", "content": m.text})
			}
			for _, c := range m.calls {
				input = append(input, obj{"type": "function_call", "call_id": c.id, "name": c.name, "arguments": c.args})
			}
		default:
			input = append(input, obj{"role": m.role, "content": m.text})
		}
	}
	b, _ := json.Marshal(obj{"model": "conformance", "stream": true, "instructions": instructions, "input": input,
		"tools": []obj{{"type": "function", "name": "read", "description": "read a file", "parameters": toolSchema}}})
	return b
}

func anthropicRequest(conv []message) []byte {
	var msgs []obj
	system := ""
	for _, m := range conv {
		switch {
		case m.role == "system":
			system = m.text
		case m.role == "tool":
			msgs = append(msgs, obj{"role": "user", "content": []obj{{"type": "tool_result", "tool_use_id": m.callID, "content": m.text, "is_error": m.isError}}})
		case m.role == "assistant":
			var content []obj
			if m.text != "" {
				content = append(content, obj{"type": "text", "text": m.text})
			}
			for _, c := range m.calls {
				content = append(content, obj{"type": "tool_use", "id": c.id, "name": c.name, "input": json.RawMessage(nonEmpty(c.args))})
			}
			msgs = append(msgs, obj{"role": "assistant", "content": content})
		default:
			msgs = append(msgs, obj{"role": m.role, "content": m.text})
		}
	}
	b, _ := json.Marshal(obj{"model": "conformance", "stream": true, "max_tokens": 1024, "system": system, "messages": msgs,
		"tools": []obj{{"name": "read", "description": "read a file", "input_schema": toolSchema}}})
	return b
}

// geminiRequest carries the tool-call ids the agent minted (the live API
// sends none), as gemini-cli does: NAME_<Unix ms>_<n>, in each
// functionCall and functionResponse.
func geminiRequest(conv []message) []byte {
	var contents []obj
	system := ""
	names := map[string]string{} // call id → tool name, for functionResponse
	for _, m := range conv {
		switch {
		case m.role == "system":
			system = m.text
		case m.role == "tool":
			contents = append(contents, obj{"role": "user", "parts": []obj{{"functionResponse": obj{"id": m.callID, "name": names[m.callID], "response": obj{"content": m.text}}}}})
		case m.role == "assistant":
			var parts []obj
			if m.text != "" {
				parts = append(parts, obj{"text": m.text})
			}
			for _, c := range m.calls {
				names[c.id] = c.name
				parts = append(parts, obj{"functionCall": obj{"id": c.id, "name": c.name, "args": json.RawMessage(nonEmpty(c.args))}})
			}
			contents = append(contents, obj{"role": "model", "parts": parts})
		default:
			contents = append(contents, obj{"role": "user", "parts": []obj{{"text": m.text}}})
		}
	}
	b, _ := json.Marshal(obj{"contents": contents, "systemInstruction": obj{"parts": []obj{{"text": system}}},
		"tools": []obj{{"functionDeclarations": []obj{{"name": "read", "description": "read a file", "parameters": toolSchema}}}}})
	return b
}

func nonEmpty(args string) string {
	if strings.TrimSpace(args) == "" {
		return "{}"
	}
	return args
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// The rest of acp.Agent: not supported.
