package openaichat

import (
	"encoding/json"
	"fmt"

	"github.com/acpsnap/acpsnap/internal/strictjson"
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
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	ToolCalls  []fullCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
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

// RequestBody renders req as the JSON body of a streaming chat completion
// that asks for usage: the system prompt as the first message, the
// messages (an assistant's tool calls with arguments "{}" when it sent
// none; reasoning is dropped, DeepSeek refuses it in input), the tools
// (parameters {"type":"object","properties":{}} when there are none),
// max_tokens when req.MaxTokens is not 0. Keys come in a fixed order.
func RequestBody(req model.Request) ([]byte, error) {
	cr := chatRequest{Model: req.Model, Stream: true, StreamOptions: streamOptions{IncludeUsage: true}, MaxTokens: req.MaxTokens}
	if req.System != "" {
		cr.Messages = append(cr.Messages, chatMessage{Role: "system", Content: req.System})
	}
	for i, m := range req.Messages {
		cm, err := requestMessage(m)
		if err != nil {
			return nil, fmt.Errorf("messages[%d]: %w", i, err)
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
	return strictjson.Encode(cr)
}

// requestMessage maps one agent message to the API's form.
func requestMessage(m model.Message) (chatMessage, error) {
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
			cm.ToolCalls = append(cm.ToolCalls, fullCall{ID: tc.ID, Type: "function", Function: fullFunction{Name: tc.Name, Arguments: args}})
		}
		return cm, nil
	case "tool":
		return chatMessage{Role: "tool", Content: m.Content, ToolCallID: m.ToolCallID}, nil
	}
	return chatMessage{}, fmt.Errorf("unknown role %q", m.Role)
}
