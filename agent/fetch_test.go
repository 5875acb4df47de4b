package agent

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
)

// TestRenderFetch: the result text made from a recorded response.
func TestRenderFetch(t *testing.T) {
	type testCase struct {
		name    string
		value   fetchValue
		want    string
		wantErr bool
	}
	for _, tc := range []testCase{
		{"text", fetchValue{Status: 200, ContentType: "text/plain", Body: "hi", Size: 2}, "HTTP 200 (text/plain)\n\nhi", false},
		{"no content type", fetchValue{Status: 204}, "HTTP 204\n\n", false},
		{"not found is an error", fetchValue{Status: 404, Body: "nope", Size: 4}, "HTTP 404\n\nnope", true},
		{"binary", fetchValue{Status: 200, ContentType: "image/png", Size: 3, Binary: true}, "HTTP 200 (image/png)\n\n[3 bytes of binary content]", false},
		{"truncated", fetchValue{Status: 200, Body: "ab", Size: 2, Truncated: true}, "HTTP 200\n\nab\n[truncated: the body is longer than 1048576 bytes]", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw, _ := json.Marshal(tc.value)
			got, err := renderFetch(raw)
			if tc.wantErr {
				if err == nil {
					t.Fatalf("no error, want %q", tc.want)
				}
				got = err.Error()
			} else if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestFetchRefusals: bad URLs are error results, and a large body is read
// only up to its bound: what the 256 KiB result cap cuts off is the rest of
// the 1 MiB read and the fetch's own truncation note, not the 10 bytes
// beyond it.
func TestFetchRefusals(t *testing.T) {
	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(strings.Repeat("x", maxFetchBytes+10)))
	}))
	defer big.Close()
	got := runOnce(t, nil, nil, acp.ClientCapabilities{},
		call("a", "fetch", map[string]string{"url": "file:///etc/passwd"}),
		call("b", "fetch", map[string]string{"url": ""}),
		call("c", "fetch", map[string]string{"url": big.URL}))
	want := []string{
		`a: url "file:///etc/passwd": only http and https are fetched`,
		"b: url is required",
	}
	if len(got) != 3 || !cmp.Equal(want, got[:2]) {
		t.Fatalf("results = %q, want %q first", got, want)
	}
	if !strings.HasSuffix(got[2], "\n[truncated: 786521 more bytes]") || len(got[2]) > maxToolOutput+200 {
		t.Errorf("large body: %d bytes, ends %q", len(got[2]), got[2][max(0, len(got[2])-120):])
	}
}
