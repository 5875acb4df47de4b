package openairesponses

import "encoding/json"

// response is the Response object of response.created, .completed,
// .incomplete, .failed and of a non-streamed answer.
type response struct {
	ID                string      `json:"id"`
	Object            string      `json:"object"`
	CreatedAt         int64       `json:"created_at"`
	Status            string      `json:"status"`
	Error             *apiError   `json:"error"`
	IncompleteDetails *incomplete `json:"incomplete_details"`
	Model             string      `json:"model"`
	Output            []item      `json:"output"`
	Usage             *usage      `json:"usage"`
}

type incomplete struct {
	Reason string `json:"reason"`
}

// item is an output item: a message, a reasoning item or a function call.
type item struct {
	ID     string `json:"id"`
	Type   string `json:"type"`
	Status string `json:"status,omitempty"`
	Role   string `json:"role,omitempty"`
	// message
	Content *[]part `json:"content,omitempty"`
	// reasoning
	Summary *[]part `json:"summary,omitempty"`
	// function_call
	CallID    string  `json:"call_id,omitempty"`
	Name      string  `json:"name,omitempty"`
	Arguments *string `json:"arguments,omitempty"`
}

// part is a content part (output_text) or a summary part (summary_text).
type part struct {
	Type        string    `json:"type"`
	Annotations *[]string `json:"annotations,omitempty"`
	Text        string    `json:"text"`
}

type usage struct {
	InputTokens         int            `json:"input_tokens"`
	InputTokensDetails  map[string]int `json:"input_tokens_details"`
	OutputTokens        int            `json:"output_tokens"`
	OutputTokensDetails map[string]int `json:"output_tokens_details"`
	TotalTokens         int            `json:"total_tokens"`
}

// apiError is the error of a failed response, and of an error event.
type apiError struct {
	Code    json.RawMessage `json:"code"`
	Message string          `json:"message"`
}

// event is any streamed event; each type uses some of the fields.
type event struct {
	Type           string    `json:"type"`
	SequenceNumber int       `json:"sequence_number"`
	Response       *response `json:"response,omitempty"`
	OutputIndex    *int      `json:"output_index,omitempty"`
	Item           *item     `json:"item,omitempty"`
	ItemID         string    `json:"item_id,omitempty"`
	ContentIndex   *int      `json:"content_index,omitempty"`
	SummaryIndex   *int      `json:"summary_index,omitempty"`
	Part           *part     `json:"part,omitempty"`
	Delta          *string   `json:"delta,omitempty"`
	Text           *string   `json:"text,omitempty"`
	Arguments      *string   `json:"arguments,omitempty"`
	// error events
	Code    json.RawMessage `json:"code,omitempty"`
	Message string          `json:"message,omitempty"`
}
