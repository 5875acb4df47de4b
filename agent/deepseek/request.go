package deepseek

import (
	"encoding/json"
	"fmt"

	"github.com/acpsnap/acpsnap/internal/jsonl"
	"github.com/acpsnap/acpsnap/model"
)

// chatRequest is the body of POST /chat/completions.
type chatRequest struct {
	Model         string        `json:"model"`
	Messages      []chatMessage `json:"messages"`
	Tools         []chatTool    `json:"tools,omitempty"`
	Stream        bool          `json:"stream"`
	StreamOptions streamOptions `json:"stream_options"`
	MaxTokens     int           `json:"max_tokens,omitempty"`
}

type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is one message of the request. Reasoning is never sent back:
// DeepSeek rejects reasoning_content in input messages.
type chatMessage struct {
	Role       string         `json:"role"`
	Content    string         `json:"content"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
}

type chatToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function chatFunction `json:"function"`
}

type chatFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type chatTool struct {
	Type     string       `json:"type"`
	Function toolFunction `json:"function"`
}

type toolFunction struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptySchema is sent for a tool without parameters.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// body renders req as the JSON request body.
func (p *Provider) body(req model.Request) ([]byte, error) {
	cr := chatRequest{Model: p.cfg.Model, Stream: true, StreamOptions: streamOptions{IncludeUsage: true}, MaxTokens: p.cfg.MaxTokens}
	if req.Model != "" {
		cr.Model = req.Model
	}
	if req.MaxTokens != 0 {
		cr.MaxTokens = req.MaxTokens
	}
	if req.System != "" {
		cr.Messages = append(cr.Messages, chatMessage{Role: "system", Content: req.System})
	}
	for i, m := range req.Messages {
		cm, err := message(m)
		if err != nil {
			return nil, fmt.Errorf("deepseek: build request: messages[%d]: %w", i, err)
		}
		cr.Messages = append(cr.Messages, cm)
	}
	for _, t := range req.Tools {
		params := t.Parameters
		if len(params) == 0 {
			params = emptySchema
		}
		cr.Tools = append(cr.Tools, chatTool{Type: "function", Function: toolFunction{Name: t.Name, Description: t.Description, Parameters: params}})
	}
	b, err := jsonl.Value(cr)
	if err != nil {
		return nil, fmt.Errorf("deepseek: build request: %w", err)
	}
	return b, nil
}

// message maps one agent message to the API's form.
func message(m model.Message) (chatMessage, error) {
	switch m.Role {
	case "user":
		return chatMessage{Role: "user", Content: m.Content}, nil
	case "assistant":
		cm := chatMessage{Role: "assistant", Content: m.Content}
		for _, tc := range m.ToolCalls {
			args := tc.Arguments
			if args == "" {
				args = "{}"
			}
			cm.ToolCalls = append(cm.ToolCalls, chatToolCall{ID: tc.ID, Type: "function", Function: chatFunction{Name: tc.Name, Arguments: args}})
		}
		return cm, nil
	case "tool":
		return chatMessage{Role: "tool", Content: m.Content, ToolCallID: m.ToolCallID}, nil
	}
	return chatMessage{}, fmt.Errorf("unknown role %q", m.Role)
}
