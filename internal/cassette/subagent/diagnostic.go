package subagent

import "fmt"

// The reasons a call has no recorded match. Exactly one applies to a miss.
const (
	// ReasonGroupExhausted: the call's occurrence group was recorded, but
	// every occurrence has been replayed already.
	ReasonGroupExhausted = "group-exhausted"
	// ReasonParentContextChanged: a call under the same parent has the
	// same request but another parent-context fingerprint.
	ReasonParentContextChanged = "parent-context-changed"
	// ReasonRequestChanged: a call under the same parent has the same
	// parent context but another request fingerprint.
	ReasonRequestChanged = "request-changed"
	// ReasonParentAndRequestChanged: calls were recorded under the parent,
	// none with this parent context or this request.
	ReasonParentAndRequestChanged = "parent-and-request-changed"
	// ReasonParentNotFound: no call was recorded under this parent path.
	ReasonParentNotFound = "parent-not-found"
)

// Diagnostic is the metadata-only analysis of one call against a
// cassette: keys, fingerprints and occurrences, never a prompt, a result
// or an error text.
type Diagnostic struct {
	// Reason is "" when the call matches, else one of the Reason* values.
	Reason             string `json:"reason,omitempty"`
	Parent             string `json:"parent"`
	Label              string `json:"label"`
	ContextFingerprint string `json:"contextFingerprint"`
	RequestFingerprint string `json:"requestFingerprint"`
	// Match is the interaction the call would replay (nil on a miss).
	Match *Candidate `json:"match,omitempty"`
	// Candidates are the interactions recorded under the same parent, in
	// admission order (on a miss; for parent-not-found: none).
	Candidates []Candidate `json:"candidates,omitempty"`
}

// Candidate is the metadata of one recorded interaction, rebuilt field by
// field so that nothing else an interaction holds can reach a diagnostic.
type Candidate struct {
	Admission          int    `json:"admission"`
	Key                string `json:"key"`
	Occurrence         int    `json:"occurrence"`
	ContextFingerprint string `json:"contextFingerprint"`
	RequestFingerprint string `json:"requestFingerprint"`
	Consumed           bool   `json:"consumed"`
}

func candidateOf(it *Interaction, consumed bool) Candidate {
	return Candidate{Admission: it.Admission, Key: it.Key, Occurrence: it.Occurrence,
		ContextFingerprint: it.ContextFingerprint, RequestFingerprint: it.RequestFingerprint, Consumed: consumed}
}

// MismatchError is a replayed call without a recorded match. Its
// Diagnostic says why.
type MismatchError struct{ Diagnostic Diagnostic }

// Code is the error code a parent can report: CASSETTE_MISMATCH.
const Code = "CASSETTE_MISMATCH"

func (e *MismatchError) Error() string {
	return fmt.Sprintf("subagent cassette: %s: no recorded call for %s under %s (%s, %d candidates)",
		Code, Escape(e.Diagnostic.Label), Escape(e.Diagnostic.Parent), e.Diagnostic.Reason, len(e.Diagnostic.Candidates))
}

// ErrorCode is Code, for parents that report codes.
func (e *MismatchError) ErrorCode() string { return Code }
