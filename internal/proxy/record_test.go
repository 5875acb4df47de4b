package proxy

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/secrets"
	"github.com/google/go-cmp/cmp"
)

const realKey = "sk-real-secret-0123456789"

// upstream is an httptest model API that checks the key and streams two
// events, the second only once release is closed.
func upstream(t *testing.T, wantAuth func(http.Header) string, release <-chan struct{}) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		if got := wantAuth(r.Header); got != "" {
			t.Errorf("upstream: %s", got)
		}
		body, _ := io.ReadAll(r.Body)
		if string(body) == `{"json":true}` {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"data":[]}`))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Request-Id", "req_volatile")
		fmt.Fprintf(w, "event: first\ndata: {\"n\":1,\"echo\":%q}\n\n", body)
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-time.After(10 * time.Second):
			t.Error("upstream: the client never saw the first event: the proxy buffers")
		}
		fmt.Fprint(w, ": keep-alive comment\n\ndata: {\"n\":2}\ndata: {\"more\":true}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestRecordStreamsEventByEvent(t *testing.T) {
	tests := []struct {
		dialect, path string
		wantAuth      func(http.Header) string
	}{
		{"openai-responses", "/responses?beta=true", func(h http.Header) string {
			if h.Get("Authorization") != "Bearer "+realKey || h.Get("X-Api-Key") != "" {
				return fmt.Sprintf("auth = %q, x-api-key = %q", h.Get("Authorization"), h.Get("X-Api-Key"))
			}
			return ""
		}},
		{"anthropic-messages", "/v1/messages?beta=true", func(h http.Header) string {
			if h.Get("X-Api-Key") != realKey || h.Get("Authorization") != "" {
				return fmt.Sprintf("auth = %q, x-api-key = %q", h.Get("Authorization"), h.Get("X-Api-Key"))
			}
			return ""
		}},
	}
	for _, tc := range tests {
		t.Run(tc.dialect, func(t *testing.T) {
			release := make(chan struct{})
			up, _ := upstream(t, tc.wantAuth, release)
			p := start(t, Config{Mode: Record, Dialect: tc.dialect, Upstream: up.URL + "/v1", Key: realKey})
			resp := post(t, context.Background(), p.URL()+tc.path, p.Key(), `{"input":[1]}`)
			defer resp.Body.Close()
			br := bufio.NewReader(resp.Body)
			first, err := readEvent(br)
			if err != nil {
				t.Fatal(err)
			}
			close(release) // the upstream sends the rest only now
			if want := `{"n":1,"echo":"{\"input\":[1]}"}`; first != want {
				t.Errorf("first event = %s, want %s", first, want)
			}
			rest, err := readAllEvents(t, br)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{"", "{\"n\":2}\n{\"more\":true}", "[DONE]"}, rest); diff != "" {
				t.Errorf("rest (-want +got):\n%s", diff) // the comment passes through as an event without data
			}
			p.Close()
			rep := p.Report()
			want := []httplog.Exchange{{
				Request: httplog.Request{Method: "POST", Path: tc.path, Header: map[string]string{"content-type": "application/json"}, Body: []byte(`{"input":[1]}`)},
				Response: httplog.Response{Status: 200, Stream: true, Header: map[string]string{"content-type": "text/event-stream"}, Events: []httplog.SSEEvent{
					{Event: "first", Data: []byte(`{"n":1,"echo":"{\"input\":[1]}"}`)},
					{Data: []byte("{\"n\":2}\n{\"more\":true}")},
					{Data: []byte("[DONE]")},
				}},
			}}
			if diff := cmp.Diff(want, rep.Exchanges); diff != "" {
				t.Errorf("exchanges (-want +got):\n%s", diff)
			}
			assertNoKey(t, rep, p.Key())
		})
	}
}

// assertNoKey fails when the real key (or the placeholder) is anywhere in
// the report or in the log composed from it.
func assertNoKey(t *testing.T, rep Report, placeholder string) {
	t.Helper()
	b, _ := json.Marshal(rep)
	log, err := httplog.Compose(context.Background(), rep.Exchanges, httplog.ComposedHeader{Dialect: "openai-chat"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{realKey, placeholder} {
		if contains(b, s) || contains(log, s) {
			t.Errorf("%q kept:\n%s\n%s", s, b, log)
		}
	}
}

func TestRecordJSONAndErrors(t *testing.T) {
	up, n := upstream(t, func(http.Header) string { return "" }, nil)
	ov, err := ParseOverrides([]byte(`{"patches":[{"call":2,"status":500}]}`), "o.json")
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, Config{Mode: Record, Dialect: "openai-chat", Upstream: up.URL, Key: realKey, Overrides: ov,
		Normalize: func(b []byte) ([]byte, error) { return []byte(strings.ReplaceAll(string(b), `"data"`, `"DATA"`)), nil }})
	resp := post(t, context.Background(), p.URL()+"/v1/chat/completions", p.Key(), `{"json":true}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"data":[]}` {
		t.Errorf("body = %s, want the upstream's, unnormalized", body)
	}
	resp = post(t, context.Background(), p.URL()+"/v1/chat/completions", p.Key(), `{}`)
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 500 || resp.Header.Get(ErrorHeader) != "override" || !contains(body, `"code":"UNAVAILABLE"`) {
		t.Errorf("patched call 2: %d %s", resp.StatusCode, body)
	}
	if n.Load() != 1 {
		t.Errorf("upstream saw %d requests, want 1 (the patched call is not forwarded)", n.Load())
	}
	p.Close()
	rep := p.Report()
	if len(rep.Exchanges) != 2 || string(rep.Exchanges[0].Response.Body) != `{"DATA":[]}` {
		t.Errorf("exchanges = %+v", rep.Exchanges)
	}
	if rep.Exchanges[1].Response.Status != 500 {
		t.Errorf("call 2 kept as %+v", rep.Exchanges[1].Response)
	}
}

func TestUpstreamUnreachable(t *testing.T) {
	up := httptest.NewServer(http.NotFoundHandler())
	up.Close() // nothing listens there now
	p := start(t, Config{Mode: Record, Dialect: "openai-chat", Upstream: up.URL, Key: realKey})
	resp := post(t, context.Background(), p.URL()+"/chat/completions", p.Key(), `{}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadGateway || resp.Header.Get("X-Should-Retry") != "false" {
		t.Errorf("status = %d, want 502", resp.StatusCode)
	}
	p.Close()
	if err := p.Report().Err(); err == nil || !strings.Contains(err.Error(), "upstream") || strings.Contains(err.Error(), realKey) {
		t.Errorf("err = %v", err)
	}
}

func TestNonceRouting(t *testing.T) {
	p := start(t, Config{Dialect: "openai-chat"})
	base := strings.TrimSuffix(p.URL(), "/"+p.nonce)
	for _, u := range []string{base + "/v1/chat/completions", base + "/" + p.nonce + "x/chat", base + "/"} {
		resp := post(t, context.Background(), u, p.Key(), `{}`)
		resp.Body.Close()
		if resp.StatusCode != 404 {
			t.Errorf("%s: status %d, want 404", u, resp.StatusCode)
		}
	}
	if !strings.HasPrefix(p.URL(), "http://127.0.0.1:") || !strings.Contains(p.Key(), p.nonce) {
		t.Errorf("url %s, key %s", p.URL(), p.Key())
	}
	p.Close()
	if rep := p.Report(); len(rep.Exchanges)+len(rep.Drifts) != 0 {
		t.Errorf("404s were kept: %+v", rep)
	}
}

// TestRecordGzipUpstream: the proxy's transport asks for gzip itself and
// hands the agent (and the recording) the decoded body.
func TestRecordGzipUpstream(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			t.Errorf("upstream accept-encoding = %q", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Encoding", "gzip")
		zw := gzip.NewWriter(w)
		zw.Write([]byte(`{"ok":true}`))
		zw.Close()
	}))
	defer up.Close()
	p := start(t, Config{Mode: Record, Dialect: "openai-chat", Upstream: up.URL})
	req, _ := http.NewRequest("POST", p.URL()+"/chat/completions", strings.NewReader(`{}`))
	req.Header.Set("Accept-Encoding", "identity")
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(body) != `{"ok":true}` || resp.Header.Get("Content-Encoding") != "" {
		t.Errorf("agent got %q with content-encoding %q", body, resp.Header.Get("Content-Encoding"))
	}
	p.Close()
	if got := p.Report().Exchanges[0].Response.Body; string(got) != `{"ok":true}` {
		t.Errorf("kept %q", got)
	}
}

// TestRecordScrubsAnEchoedKey: an upstream that echoes the key into its
// answer gets it neither to the agent nor into the recording.
func TestRecordScrubsAnEchoedKey(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Retry-After", r.Header.Get("Authorization"))
		fmt.Fprintf(w, "data: {\"auth\":%q}\n\ndata: %s\n\n", r.Header.Get("Authorization"), realKey)
	}))
	defer up.Close()
	p := start(t, Config{Mode: Record, Dialect: "openai-responses", Upstream: up.URL, Key: realKey})
	resp := post(t, context.Background(), p.URL()+"/responses", p.Key(), `{"echo":"`+realKey+`"}`)
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if h := fmt.Sprint(resp.Header); strings.Contains(string(got)+h, realKey) {
		t.Errorf("the agent got the key from the upstream's answer:\n%s\n%s", h, got)
	}
	p.Close()
	rep := p.Report()
	assertNoKey(t, rep, p.Key())
	if got := string(rep.Exchanges[0].Response.Events[1].Data); got != "[key]" {
		t.Errorf("event 2 kept as %q", got)
	}
}

// An agent that goes away after the last event, before the upstream's end
// of stream, did not cancel: the upstream ending cleanly right after is a
// complete exchange, whichever the proxy saw first. An upstream that keeps
// the stream open after the agent left is a cancel.
func TestRecordAgentLeavesAfterTheLastEvent(t *testing.T) {
	for _, tc := range []struct {
		name    string
		ends    bool // the upstream ends its stream once the agent left
		wantEnd string
	}{
		{"upstream ends", true, ""},
		{"upstream stays open", false, httplog.EndCancel},
	} {
		t.Run(tc.name, func(t *testing.T) {
			left, done := make(chan struct{}), make(chan struct{})
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprint(w, "data: {\"n\":1}\n\n")
				w.(http.Flusher).Flush()
				<-left
				if !tc.ends {
					select {
					case <-r.Context().Done():
					case <-done:
					}
				}
			}))
			defer up.Close()
			defer close(done)
			p := start(t, Config{Mode: Record, Dialect: "openai-responses", Upstream: up.URL, Key: realKey})
			ctx, cancel := context.WithCancel(context.Background())
			resp := post(t, ctx, p.URL()+"/responses", p.Key(), `{}`)
			if ev, err := readEvent(bufio.NewReader(resp.Body)); err != nil || ev != `{"n":1}` {
				t.Fatalf("event %q, %v", ev, err)
			}
			cancel()
			resp.Body.Close()
			close(left)
			p.Close()
			x := p.Report().Exchanges[0]
			if x.Response.End != tc.wantEnd || len(x.Response.Events) != 1 {
				t.Errorf("end %q with %d events, want %q with 1", x.Response.End, len(x.Response.Events), tc.wantEnd)
			}
		})
	}
}

// TestHeadProbe: a HEAD of the base URL (Claude Code's reachability probe)
// is answered 200 in both modes, never reaches the upstream and is neither
// counted nor kept: call 1 is still the first POST.
func TestHeadProbe(t *testing.T) {
	release := make(chan struct{})
	close(release)
	srv, n := upstream(t, func(http.Header) string { return "" }, release)
	for _, cfg := range []Config{
		{Mode: Record, Dialect: "anthropic-messages", Upstream: srv.URL},
		{Dialect: "anthropic-messages", Exchanges: []httplog.Exchange{exchange("/v1/messages", `{"a":1}`, stream(`{"n":1}`))}},
	} {
		p := start(t, cfg)
		for _, u := range []string{p.URL(), p.URL() + "/"} {
			resp, err := http.Head(u)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Errorf("mode %d: HEAD %s: status %d, want 200", cfg.Mode, u, resp.StatusCode)
			}
		}
		resp := post(t, context.Background(), p.URL()+"/v1/messages", p.Key(), `{"a":1}`)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		p.Close()
		rep := p.Report()
		if err := rep.Err(); err != nil {
			t.Errorf("mode %d: %v", cfg.Mode, err)
		}
		if len(rep.Exchanges) != 1 || rep.Exchanges[0].Request.Method != "POST" {
			t.Errorf("mode %d: exchanges %+v, want the POST alone", cfg.Mode, rep.Exchanges)
		}
	}
	if got := n.Load(); got != 1 {
		t.Errorf("upstream saw %d requests, want the one POST", got)
	}
}

// TestRecordScrubsADisguisedKey: an upstream that reflects the key
// base64-, hex-, percent-, \u-escaped or reversed gets it neither to the
// agent nor into the recording, and the stream keeps its events.
func TestRecordScrubsADisguisedKey(t *testing.T) {
	var pct strings.Builder
	for _, c := range []byte(realKey) {
		fmt.Fprintf(&pct, "%%%02X", c)
	}
	rev := []byte(realKey)
	slices.Reverse(rev)
	disguised := []string{base64.StdEncoding.EncodeToString([]byte(`{"k":"` + realKey + `"}`)), hex.EncodeToString([]byte(realKey)),
		pct.String(), strings.ReplaceAll(strconv.QuoteToASCII(realKey), "-", `\u002d`), string(rev)}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("X-Echo", base64.StdEncoding.EncodeToString([]byte(realKey)))
		for _, d := range disguised {
			fmt.Fprintf(w, "data: {\"echo\":%q}\n\n", d)
		}
		fmt.Fprint(w, "data: {\"done\":true}\n\n")
	}))
	defer up.Close()
	p := start(t, Config{Mode: Record, Dialect: "openai-responses", Upstream: up.URL, Key: realKey, ResponseHeaders: []string{"x-echo"}})
	resp := post(t, context.Background(), p.URL()+"/responses", p.Key(), `{}`)
	events, err := readAllEvents(t, resp.Body)
	resp.Body.Close()
	p.Close()
	leaks := secrets.New(map[string]string{"OPENAI_API_KEY": realKey}, nil)
	if err != nil || len(events) != len(disguised)+1 || events[len(events)-1] != `{"done":true}` {
		t.Errorf("the agent got %d events (%v), want %d, the last {\"done\":true}: %q", len(events), err, len(disguised)+1, events)
	}
	if h, ok := leaks.Find([]byte(strings.Join(events, "\n") + fmt.Sprint(resp.Header))); ok {
		t.Errorf("the agent got the key, disguised, line %d: %q", h.Line, events)
	}
	rep := p.Report()
	log, err := httplog.Compose(context.Background(), rep.Exchanges, httplog.ComposedHeader{Dialect: "openai-responses"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := leaks.Check("session.jsonl", log); err != nil {
		t.Errorf("the recording holds the key: %v\n%s", err, log)
	}
}
