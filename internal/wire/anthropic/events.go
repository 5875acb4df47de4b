package anthropic

import "encoding/json"

// message is the Message object of message_start and of a non-streamed
// answer.
type message struct {
	ID           string  `json:"id"`
	Type         string  `json:"type"`
	Role         string  `json:"role"`
	Model        string  `json:"model"`
	Content      []block `json:"content"`
	StopReason   *string `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
	Usage        usage   `json:"usage"`
}

// block is a content block: text, thinking or tool_use.
type block struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text,omitempty"`
	Thinking  *string         `json:"thinking,omitempty"`
	Signature *string         `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
}

type usage struct {
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
}

// delta is the delta of content_block_delta and message_delta.
type delta struct {
	Type         string  `json:"type,omitempty"`
	Text         *string `json:"text,omitempty"`
	Thinking     *string `json:"thinking,omitempty"`
	PartialJSON  *string `json:"partial_json,omitempty"`
	Signature    *string `json:"signature,omitempty"`
	StopReason   *string `json:"stop_reason,omitempty"`
	StopSequence *string `json:"stop_sequence,omitempty"`
}

// stopDelta is the delta of a rendered message_delta.
type stopDelta struct {
	StopReason   string  `json:"stop_reason"`
	StopSequence *string `json:"stop_sequence"`
}

// messageDelta is a rendered message_delta event: its usage carries the
// input tokens too, as the API's does (clients overwrite theirs with it).
type messageDelta struct {
	Type  string    `json:"type"`
	Delta stopDelta `json:"delta"`
	Usage usage     `json:"usage"`
}

// event is any streamed event; each type uses some of the fields.
type event struct {
	Type         string    `json:"type"`
	Message      *message  `json:"message,omitempty"`
	Index        *int      `json:"index,omitempty"`
	ContentBlock *block    `json:"content_block,omitempty"`
	Delta        *delta    `json:"delta,omitempty"`
	Usage        *usage    `json:"usage,omitempty"`
	Error        *apiError `json:"error,omitempty"`
}

// apiError is the error of an error body and of an error event.
type apiError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// errorTypes maps codes to Anthropic's error types and back. STREAM and
// REPLAY have no type of Anthropic's: they get one of their own, so that
// they survive the trip.
var errorTypes = []struct{ code, typ string }{
	{"AUTH", "authentication_error"},
	{"RATE_LIMIT", "rate_limit_error"},
	{"UNAVAILABLE", "overloaded_error"},
	{"BAD_REQUEST", "invalid_request_error"},
	{"INTERNAL", "api_error"},
	{"STREAM", "stream_error"},
	{"REPLAY", "replay_error"},
	{"AUTH", "permission_error"},
	{"BAD_REQUEST", "not_found_error"},
	{"BAD_REQUEST", "request_too_large"},
}

// stopReasons maps finish reasons to stop_reason values.
var stopReasons = map[string]string{"stop": "end_turn", "tool-calls": "tool_use", "max-tokens": "max_tokens"}

// finishReasons maps stop_reason values back; stop_sequence is a stop.
var finishReasons = map[string]string{"end_turn": "stop", "stop_sequence": "stop", "tool_use": "tool-calls", "max_tokens": "max-tokens"}
