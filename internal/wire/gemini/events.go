package gemini

import "encoding/json"

// response is a GenerateContentResponse: one streamed event's data, or a
// whole non-streamed answer. Error is set instead in a stream that fails.
type response struct {
	Candidates    []candidate `json:"candidates,omitempty"`
	UsageMetadata *usage      `json:"usageMetadata,omitempty"`
	ModelVersion  string      `json:"modelVersion,omitempty"`
	ResponseID    string      `json:"responseId,omitempty"`
	Error         *apiError   `json:"error,omitempty"`
}

type candidate struct {
	Content      content `json:"content"`
	FinishReason string  `json:"finishReason,omitempty"`
	Index        int     `json:"index"`
}

type content struct {
	Parts []part `json:"parts"`
	Role  string `json:"role,omitempty"`
}

// part is one part of a content: text (a thought when Thought is set) or
// a function call.
type part struct {
	Text         *string       `json:"text,omitempty"`
	Thought      bool          `json:"thought,omitempty"`
	FunctionCall *functionCall `json:"functionCall,omitempty"`
}

type functionCall struct {
	ID   string          `json:"id,omitempty"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type usage struct {
	PromptTokenCount     int `json:"promptTokenCount"`
	CandidatesTokenCount int `json:"candidatesTokenCount"`
	ThoughtsTokenCount   int `json:"thoughtsTokenCount,omitempty"`
	TotalTokenCount      int `json:"totalTokenCount"`
}

// errorBody is the body of a refused request, and the data of a failing
// stream's last event.
type errorBody struct {
	Error *apiError `json:"error"`
}

type apiError struct {
	Code    int      `json:"code"`
	Message string   `json:"message"`
	Status  string   `json:"status"`
	Details []detail `json:"details,omitempty"`
}

// detail is a google.rpc error detail: ErrorInfo (Reason, Domain) or
// RetryInfo (RetryDelay).
type detail struct {
	Type       string `json:"@type"`
	Reason     string `json:"reason,omitempty"`
	Domain     string `json:"domain,omitempty"`
	RetryDelay string `json:"retryDelay,omitempty"`
}

// The google.rpc detail types the codec writes and reads.
const (
	errorInfoType = "type.googleapis.com/google.rpc.ErrorInfo"
	retryInfoType = "type.googleapis.com/google.rpc.RetryInfo"
)

// Domain is the ErrorInfo domain of the error bodies acpsnap writes: its
// reason is the provider error code.
const Domain = "acpsnap"

// The finish reasons of a candidate that have a finish chunk of their own;
// any other is a model-side stop.
const (
	reasonStop      = "STOP"
	reasonMaxTokens = "MAX_TOKENS"
)
