package proxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/internal/httplog"
)

// benchBody is a realistic follow-up request: a system prompt, tool
// schemas and a dozen conversation items (about 20 KB).
func benchBody() string {
	var items []string
	for i := range 12 {
		items = append(items, fmt.Sprintf(`{"type":"message","role":"user","content":[{"type":"input_text","text":"step %d: %s"}]}`, i, strings.Repeat("words ", 200)))
	}
	tools := strings.Repeat(`{"type":"function","name":"shell","parameters":{"type":"object","properties":{"command":{"type":"array"}}}},`, 20)
	return `{"model":"gpt-5.4","instructions":"` + strings.Repeat("You are Codex. ", 100) + `","input":[` + strings.Join(items, ",") +
		`],"tools":[` + strings.TrimSuffix(tools, ",") + `],"stream":true,"prompt_cache_key":"k"}`
}

// benchGeminiBody is benchBody in Gemini's generateContent dialect.
func benchGeminiBody() string {
	var items []string
	for i := range 12 {
		items = append(items, fmt.Sprintf(`{"role":"user","parts":[{"text":"step %d: %s"}]}`, i, strings.Repeat("words ", 200)))
	}
	tools := strings.Repeat(`{"name":"run_shell_command","parametersJsonSchema":{"type":"object","properties":{"command":{"type":"string"}}}},`, 20)
	return `{"contents":[` + strings.Join(items, ",") + `],"systemInstruction":{"role":"user","parts":[{"text":"` + strings.Repeat("You are Gemini CLI. ", 100) +
		`"}]},"tools":[{"functionDeclarations":[` + strings.TrimSuffix(tools, ",") + `]}],"generationConfig":{"temperature":1}}`
}

// benchGeminiEvents is a 30-event streamed Gemini answer.
func benchGeminiEvents() []httplog.SSEEvent {
	var evs []httplog.SSEEvent
	for i := range 30 {
		evs = append(evs, httplog.SSEEvent{Data: []byte(fmt.Sprintf(`{"candidates":[{"content":{"parts":[{"text":"token %d "}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"r"}`, i))})
	}
	return evs
}

// benchEvents is a 30-event streamed answer.
func benchEvents() []httplog.SSEEvent {
	var evs []httplog.SSEEvent
	for i := range 30 {
		evs = append(evs, httplog.SSEEvent{Event: "response.output_text.delta", Data: []byte(fmt.Sprintf(`{"type":"response.output_text.delta","delta":"token %d "}`, i))})
	}
	return evs
}

// scripted is the in-process server a proxy is compared with: it reads
// the request and streams the events, flushing each.
func scripted(evs []httplog.SSEEvent) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range evs {
			writeEvent(w, e, e.Data)
		}
	}))
}

// timeCall sends body to url and returns the time to the first event and
// to the end of the stream.
func timeCall(b *testing.B, url, body string) (ttfb, total time.Duration) {
	t0 := time.Now()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if _, err := readEvent(br); err != nil {
		b.Fatal(err)
	}
	ttfb = time.Since(t0)
	io.Copy(io.Discard, br)
	resp.Body.Close()
	return ttfb, time.Since(t0)
}

func p50(ds []time.Duration) float64 {
	slices.Sort(ds)
	return float64(ds[len(ds)/2].Microseconds())
}

// BenchmarkReplayCall compares, call by call in one run, a model call
// replayed through the proxy with the same answer from an in-process
// server, per dialect: the proxy's cost per call (p50) must stay under 1 ms.
func BenchmarkReplayCall(b *testing.B) {
	for _, bc := range []struct {
		dialect, path, body string
		events              []httplog.SSEEvent
		ignore              []string
	}{
		{"openai-responses", "/responses", benchBody(), benchEvents(), []string{"/prompt_cache_key"}},
		{"gemini-generate-content", "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", benchGeminiBody(), benchGeminiEvents(), nil},
	} {
		b.Run(bc.dialect, func(b *testing.B) {
			direct := scripted(bc.events)
			defer direct.Close()
			x := exchange(bc.path, bc.body, stream())
			x.Response.Events = bc.events
			xs := make([]httplog.Exchange, b.N) // one identical call per iteration
			for i := range xs {
				xs[i] = x
			}
			p, err := Start(context.Background(), Config{Dialect: bc.dialect, Exchanges: xs, Ignore: bc.ignore})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close()
			b.ResetTimer()
			sideBySide(b, direct.URL, p.URL(), bc.path, bc.body, "", func(_, total time.Duration) time.Duration { return total })
		})
	}
}

// sideBySide alternates one call straight to direct and one through the
// proxy per iteration and reports both p50s and their difference.
func sideBySide(b *testing.B, direct, proxied, path, body, what string, pick func(ttfb, total time.Duration) time.Duration) {
	var viaProxy, viaDirect []time.Duration
	for range b.N {
		viaDirect = append(viaDirect, pick(timeCall(b, direct+path, body)))
		viaProxy = append(viaProxy, pick(timeCall(b, proxied+path, body)))
	}
	b.ReportMetric(p50(viaDirect), "direct-"+what+"p50-µs")
	b.ReportMetric(p50(viaProxy), "proxy-"+what+"p50-µs")
	b.ReportMetric(p50(viaProxy)-p50(viaDirect), "added-"+what+"p50-µs")
}

// BenchmarkRecordTTFB compares the time to the first event of a call
// straight to an upstream with the same call recorded through the proxy:
// the proxy may add under 2 ms (p50).
func BenchmarkRecordTTFB(b *testing.B) {
	body := benchBody()
	up := scripted(benchEvents())
	defer up.Close()
	p, err := Start(context.Background(), Config{Mode: Record, Dialect: "openai-responses", Upstream: up.URL, Key: "k"})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close()
	sideBySide(b, up.URL, p.URL(), "/responses", body, "ttfb-", func(ttfb, _ time.Duration) time.Duration { return ttfb })
}

// BenchmarkIdentify is the fingerprint of a realistic request alone.
func BenchmarkIdentify(b *testing.B) {
	p := &Proxy{}
	p.ignore, _ = parseIgnore([]string{"/prompt_cache_key"})
	q := exchange("/responses", benchBody(), stream()).Request
	b.SetBytes(int64(len(q.Body)))
	for b.Loop() {
		p.identify(q)
	}
}
