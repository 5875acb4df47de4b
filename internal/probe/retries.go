package probe

import "bytes"

// Retry is a model call that repeats the call before it right after that
// one was answered with an error status, and was answered without one: the
// agent retried, as the OpenAI and Anthropic SDKs do for 429 and 5xx
// (twice), so a scenario whose model.json or override answers one call
// with an error records the retry's answer, not the error path.
type Retry struct {
	Scenario string `json:"scenario,omitempty"` // when the report covers several
	Run      int    `json:"run"`                // from 1
	Call     int    `json:"call"`               // the retry, from 1
	Status   int    `json:"status"`             // of the call it repeats
}

// Retries are the retried error calls among one run's requests, in call
// order (Run and Scenario unset).
func Retries(reqs []Request) []Retry {
	var out []Retry
	for i := 1; i < len(reqs); i++ {
		prev, q := reqs[i-1], reqs[i]
		if prev.Status >= 400 && q.Status > 0 && q.Status < 400 && prev.Method == q.Method && prev.Path == q.Path && bytes.Equal(prev.Body, q.Body) {
			out = append(out, Retry{Call: i + 1, Status: prev.Status})
		}
	}
	return out
}

// RetryAdvice is what a retried error call means and what to do about it.
const RetryAdvice = "the agent retried an error (the OpenAI and Anthropic SDKs retry 429 and 5xx twice), so the scenario records the retry's answer, not the error: " +
	"to test the error, patch every attempt (replay.override.json, one patch per call); a retry-after header (\"headers\":{\"retry-after\":\"0\"}) keeps the retries fast"
