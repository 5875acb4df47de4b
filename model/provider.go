package model

import (
	"context"
	"encoding/json"
)

// Provider is the model seam: the only thing that differs between a live
// (record) run and a replay. Stream sends one request and calls emit for each
// chunk of docs/format.md, "Session log", in order, from the calling goroutine. It returns when the
// stream ends (after a finish chunk), when ctx is cancelled (ctx.Err()), or
// with a *ProviderError for a coded provider failure; chunks
// emitted before such an error are the failed attempt's prefix. An error
// returned by emit aborts the stream and is returned as is.
type Provider interface {
	Stream(ctx context.Context, req Request, emit func(Chunk) error) error
}

// Request is one model call.
type Request struct {
	// SessionID is the agent's session making the call; SpawnedBy is the
	// tool-call id that spawned it ("" for a top-level session); Cwd is the
	// session's working directory. Providers that replay use them to pick
	// and expand their script; live providers ignore them.
	SessionID string
	SpawnedBy string
	Cwd       string

	Model     string
	System    string
	Messages  []Message
	Tools     []ToolSpec
	MaxTokens int // 0: the provider's default
}

// Message is one conversation message in OpenAI-compatible roles:
// "user", "assistant" (Content, Reasoning, ToolCalls) and "tool"
// (ToolCallID, Content).
type Message struct {
	Role       string     `json:"role"`
	Content    string     `json:"content,omitempty"`
	Reasoning  string     `json:"reasoning,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
}

// ToolCall is a tool invocation requested by the model.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"` // raw JSON text as the model sent it
}

// ToolSpec describes a tool the model may call; Parameters is a JSON schema.
type ToolSpec struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}
