package httplog_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/normalize"
)

// TestErrorBodyByteForByte: a response body comes back from a normalized
// composed log exactly as it was recorded, whatever its key order and
// layout, so an agent that shows an error body sees the same bytes in
// replay.
func TestErrorBodyByteForByte(t *testing.T) {
	type bodyCase struct {
		name     string
		body     string
		embedded bool // kept as JSON in the log (readable diffs), not as text
	}
	for _, c := range []bodyCase{
		{"unsorted", `{"error":{"type":"rate_limit","message":"slow down"}}`, false},
		{"spaced", `{"error": {"message": "slow down"}}`, false},
		{"newline", "{\"error\":{\"code\":\"x\",\"message\":\"slow down\"}}\n", false},
		{"canonical", `{"error":{"code":"x","message":"slow down"}}`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			xs := []httplog.Exchange{{Request: httplog.Request{Method: "POST", Path: "/chat/completions", Body: []byte(`{"model":"m"}`)},
				Response: httplog.Response{Status: 429, Body: []byte(c.body)}}}
			log, err := httplog.Compose(context.Background(), xs, httplog.ComposedHeader{ID: "s", Cwd: "/w", Dialect: "openai-chat"}, nil)
			if err != nil {
				t.Fatal(err)
			}
			norm, err := normalize.Session(log, normalize.NewContext("/w"))
			if err != nil {
				t.Fatal(err)
			}
			if got := bytes.Contains(norm, []byte(`"body":{"error"`)); got != c.embedded {
				t.Errorf("embedded = %v, want %v:\n%s", got, c.embedded, norm)
			}
			_, back, err := httplog.Decompose(norm, "session.jsonl", nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.body, string(back[0].Response.Body)); diff != "" {
				t.Errorf("served body (-want +got):\n%s", diff)
			}
		})
	}
}
