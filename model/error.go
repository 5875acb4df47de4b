package model

// ProviderError is a model-provider failure with a stable code: AUTH,
// RATE_LIMIT, UNAVAILABLE, BAD_REQUEST, STREAM (the stream broke mid-way),
// REPLAY (the replay script cannot serve the call) or INTERNAL. Both the
// live provider and the replay Player return it.
type ProviderError struct {
	Code    string
	Message string
}

func (e *ProviderError) Error() string { return e.Code + ": " + e.Message }

// Retryable reports whether a caller may retry the call once (RATE_LIMIT and
// UNAVAILABLE).
func (e *ProviderError) Retryable() bool { return e.Code == CodeRateLimit || e.Code == CodeUnavailable }

// Provider error codes.
const (
	CodeAuth        = "AUTH"        // the key was refused (401, 403)
	CodeRateLimit   = "RATE_LIMIT"  // too many requests (429)
	CodeUnavailable = "UNAVAILABLE" // the provider failed or is overloaded (5xx)
	CodeBadRequest  = "BAD_REQUEST" // the request was refused (other 4xx)
	CodeStream      = "STREAM"      // the stream broke off mid-way
	CodeReplay      = "REPLAY"      // the replay script cannot serve the call
	CodeInternal    = "INTERNAL"    // anything else
)
