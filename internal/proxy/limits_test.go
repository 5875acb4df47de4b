package proxy

import (
	"bufio"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// rawRequest sends the request line and headers as written (no client
// cleans the path) and returns the status code the proxy answered, 0 for a
// broken connection.
func rawRequest(t *testing.T, p *Proxy, method, path, body string) int {
	t.Helper()
	c, err := net.Dial("tcp", p.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "%s /%s%s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		method, p.nonce, path, len(body), body)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// counting is an upstream that counts what reaches it and answers a JSON
// body.
func counting(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{}`))
	}))
	t.Cleanup(up.Close)
	return up, &n
}

// TestRecordEndpointAllowlist: only the dialect's method and endpoint
// path, cleaned, go upstream with the key; anything else is refused and
// fails the recording, a control character included (no panic).
func TestRecordEndpointAllowlist(t *testing.T) {
	type testCase struct {
		dialect, method, path string
		forwarded             bool
	}
	cases := []testCase{
		{"openai-chat", "POST", "/v1/chat/completions", true},
		{"openai-responses", "POST", "/responses", true},
		{"anthropic-messages", "POST", "/v1/messages?beta=true", true},
		{"anthropic-messages", "POST", "/v1/messages/count_tokens", true},
		{"openai-chat", "DELETE", "/v1/../../x", false},
		{"openai-chat", "DELETE", "/v1/chat/completions", false},
		{"openai-chat", "GET", "/v1/models", false},
		{"openai-chat", "POST", "/v1/../../x/chat/completions", false},
		{"openai-chat", "POST", "/v1/./chat/completions", false},
		{"openai-chat", "POST", "//chat/completions", false},
		{"openai-chat", "POST", "/%2e%2e/chat/completions", false},
		{"openai-chat", "POST", "/x%2Fchat/completions", false},
		{"openai-chat", "POST", "/v1%0a/chat/completions", false},
		{"openai-chat", "POST", "/v1%7f/chat/completions", false},
		{"anthropic-messages", "POST", "/v1/chat/completions", false},
		{"gemini-generate-content", "POST", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", true},
		{"gemini-generate-content", "POST", "/v1beta/models/../../x:generateContent", false},
		{"gemini-generate-content", "GET", "/v1beta/models/gemini-2.5-flash:generateContent", false},
	}
	for _, c := range cases {
		t.Run(c.dialect+" "+c.method+" "+c.path, func(t *testing.T) {
			up, n := counting(t)
			p := start(t, Config{Mode: Record, Dialect: c.dialect, Upstream: up.URL, Key: realKey})
			status := rawRequest(t, p, c.method, c.path, `{}`)
			p.Close()
			err := p.Report().Err()
			got := testCase{c.dialect, c.method, c.path, n.Load() == 1}
			if d := cmp.Diff(c, got, cmp.AllowUnexported(testCase{})); d != "" {
				t.Errorf("forwarded (-want +got):\n%s", d)
			}
			if c.forwarded != (err == nil) || !c.forwarded && status != http.StatusNotFound {
				t.Errorf("status %d, report error %v", status, err)
			}
		})
	}
}

// TestRecordRequestCap: a request body over MaxRequestBytes is refused
// (413), not forwarded, and fails the recording; one at the cap passes.
func TestRecordRequestCap(t *testing.T) {
	for _, size := range []int{16, 17} {
		up, n := counting(t)
		p := start(t, Config{Mode: Record, Dialect: "openai-chat", Upstream: up.URL, Key: realKey, MaxRequestBytes: 16})
		status := rawRequest(t, p, "POST", "/chat/completions", `{"a":"`+strings.Repeat("x", size-8)+`"}`)
		p.Close()
		err := p.Report().Err()
		over := size > 16
		if over != (status == http.StatusRequestEntityTooLarge) || over == (n.Load() == 1) || over != (err != nil) {
			t.Errorf("%d bytes: status %d, forwarded %d, report error %v", size, status, n.Load(), err)
		}
		if over && !strings.Contains(err.Error(), "more than 16 bytes") {
			t.Errorf("%d bytes: error %v, want it to name the cap", size, err)
		}
	}
}

// TestRunRequestCap: the proxy keeps every request body until the run
// ends, so the bodies of one run are capped in all (MaxRunRequestBytes):
// the request that would pass the cap is refused (413), not forwarded,
// and fails the run, in record and in replay; those before it pass.
func TestRunRequestCap(t *testing.T) {
	body := `{"a":"` + strings.Repeat("x", 12) + `"}` // 20 bytes
	for _, mode := range []Mode{Record, Replay} {
		up, n := counting(t)
		p := start(t, Config{Mode: mode, Dialect: "openai-chat", Upstream: up.URL, Key: realKey, MaxRunRequestBytes: 40})
		var statuses []int
		for range 3 {
			statuses = append(statuses, rawRequest(t, p, "POST", "/chat/completions", body))
		}
		p.Close()
		if statuses[2] != http.StatusRequestEntityTooLarge || statuses[0] == http.StatusRequestEntityTooLarge || statuses[1] == http.StatusRequestEntityTooLarge {
			t.Errorf("%v: statuses %v, want the third alone refused with 413", mode, statuses)
		}
		if mode == Record && n.Load() != 2 {
			t.Errorf("record: %d requests forwarded, want the 2 under the cap", n.Load())
		}
		err := p.Report().Err()
		if err == nil || !strings.Contains(err.Error(), "the request bodies of this run: more than 40 bytes in all") {
			t.Errorf("%v: report error %v, want it to name the run's cap", mode, err)
		}
	}
}

// endless is an upstream that streams what write writes until the client
// goes away, and says how many bytes it got out.
func endless(t *testing.T, contentEncoding string, write func(w io.Writer) error) *httptest.Server {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		var out io.Writer = w
		if contentEncoding == "gzip" {
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Encoding", "gzip")
			zw := gzip.NewWriter(w)
			defer zw.Close()
			out = zw
		}
		for r.Context().Err() == nil {
			if write(out) != nil {
				return
			}
		}
	}))
	t.Cleanup(up.Close)
	return up
}

// TestRecordAnswerCaps: an upstream that never ends its answer (endless
// events, one endless data line, a gzip bomb) is cut at the cap, the agent
// sees a broken connection, and the recording fails naming the cap.
func TestRecordAnswerCaps(t *testing.T) {
	type testCase struct {
		name     string
		up       *httptest.Server
		cfg      Config
		wantErr  string
		wantSeen int // events the agent saw before the break
	}
	cases := []testCase{
		{"endless events", endless(t, "", func(w io.Writer) error { _, err := io.WriteString(w, "data: {}\n\n"); return err }),
			Config{MaxEvents: 3}, "more than 3 events", 3},
		{"endless data line", endless(t, "", func(w io.Writer) error { _, err := io.WriteString(w, "data: xxxxxxxx"); return err }),
			Config{MaxResponseBytes: 1024}, "more than 1024 bytes (after decoding)", 0},
		{"gzip bomb", endless(t, "gzip", func(w io.Writer) error { _, err := w.Write(make([]byte, 4096)); return err }),
			Config{MaxResponseBytes: 1024}, "more than 1024 bytes (after decoding)", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			cfg.Mode, cfg.Dialect, cfg.Upstream, cfg.Key = Record, "openai-chat", c.up.URL, realKey
			p := start(t, cfg)
			resp := post(t, context.Background(), p.URL()+"/chat/completions", p.Key(), `{}`)
			events, err := readAllEvents(t, resp.Body)
			resp.Body.Close()
			if resp.Header.Get("Content-Encoding") == "" && !strings.Contains(resp.Header.Get("Content-Type"), "json") && len(events) != c.wantSeen {
				t.Errorf("agent saw %d events, want %d", len(events), c.wantSeen)
			}
			if err == nil && c.name != "gzip bomb" {
				t.Errorf("the agent's stream ended cleanly, want a broken connection")
			}
			p.Close()
			if rerr := p.Report().Err(); rerr == nil || !strings.Contains(rerr.Error(), c.wantErr) {
				t.Errorf("report error = %v, want %q", rerr, c.wantErr)
			}
		})
	}
}

// TestRecordNoRedirect: a redirect from the upstream is handed to the
// agent, never followed with the key.
func TestRecordNoRedirect(t *testing.T) {
	other, n := counting(t)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/chat/completions", http.StatusTemporaryRedirect)
	}))
	defer up.Close()
	p := start(t, Config{Mode: Record, Dialect: "openai-chat", Upstream: up.URL, Key: realKey})
	resp, err := http.DefaultTransport.RoundTrip(mustRequest(t, p.URL()+"/chat/completions"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || n.Load() != 0 {
		t.Errorf("agent got %d; the redirect's target saw %d requests, want 307 and none", resp.StatusCode, n.Load())
	}
}

func mustRequest(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestReportSummarizesAlikeFailures: 500 calls that failed alike are one
// line of the report's error, not 500; distinct failures keep their lines.
func TestReportSummarizesAlikeFailures(t *testing.T) {
	var errs []string
	for i := 1; i <= 500; i++ {
		errs = append(errs, fmt.Sprintf("call %d: upstream: read: connection reset", i))
	}
	errs = append(errs, "call 501: request body: more than 16 bytes", "request 2: normalize: bad")
	got := strings.Split(Report{Errors: errs}.Err().Error(), "\n")
	want := []string{
		"proxy: calls 1, 2, 3 and 497 more: upstream: read: connection reset",
		"call 501: request body: more than 16 bytes",
		"request 2: normalize: bad",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("report error lines (-want +got):\n%s", d)
	}
}
