package openaichat

import "encoding/json"

// The JSON shapes of the dialect. The render side writes every field the
// reference traffic has (and nothing else); the parse side decodes only
// what it maps to chunks.

// chunkEvent is one streamed "chat.completion.chunk".
type chunkEvent struct {
	ID      string        `json:"id"`
	Object  string        `json:"object"`
	Created int64         `json:"created"`
	Model   string        `json:"model"`
	Choices []chunkChoice `json:"choices"`
	Usage   *usage        `json:"usage,omitempty"`
	Error   *apiError     `json:"error,omitempty"` // parse side: a mid-stream error event
}

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role             string     `json:"role,omitempty"`
	Content          *string    `json:"content,omitempty"`
	ReasoningContent *string    `json:"reasoning_content,omitempty"`
	ToolCalls        []toolCall `json:"tool_calls,omitempty"`
}

type toolCall struct {
	Index    int      `json:"index"`
	ID       string   `json:"id,omitempty"`
	Type     string   `json:"type,omitempty"`
	Function function `json:"function"`
}

type function struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

type usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}

// completion is a non-streamed "chat.completion".
type completion struct {
	ID      string             `json:"id"`
	Object  string             `json:"object"`
	Created int64              `json:"created"`
	Model   string             `json:"model"`
	Choices []completionChoice `json:"choices"`
	Usage   *usage             `json:"usage,omitempty"`
}

type completionChoice struct {
	Index        int     `json:"index"`
	Message      message `json:"message"`
	FinishReason string  `json:"finish_reason"`
}

// message is an assistant message of a completion, and (with ToolCallID)
// any message of a request.
type message struct {
	Role             string     `json:"role"`
	Content          *string    `json:"content"`
	ReasoningContent *string    `json:"reasoning_content,omitempty"`
	ToolCalls        []fullCall `json:"tool_calls,omitempty"`
	ToolCallID       string     `json:"tool_call_id,omitempty"`
}

type fullCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function fullFunction `json:"function"`
}

type fullFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// apiError is the "error" object of an error body and of a mid-stream
// error event. Code is a string for DeepSeek and acpsnap, but some
// compatible servers send a number or null.
type apiError struct {
	Message string          `json:"message"`
	Type    string          `json:"type,omitempty"`
	Code    json.RawMessage `json:"code"`
}

// finishReasons maps chunk finish reasons to the dialect's.
var finishReasons = map[string]string{"stop": "stop", "tool-calls": "tool_calls", "max-tokens": "length"}

// chunkReasons maps the dialect's finish reasons back.
var chunkReasons = map[string]string{"stop": "stop", "tool_calls": "tool-calls", "length": "max-tokens"}
