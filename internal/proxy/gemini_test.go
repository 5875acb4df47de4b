package proxy

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/acpsnap/acpsnap/internal/httplog"
)

// seen is an upstream that keeps the request URI and key header of what
// reaches it, and answers a Gemini JSON body.
func seen(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var got []string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.RequestURI+" key="+r.Header.Get("X-Goog-Api-Key"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"finishReason":"STOP","index":0}]}`)
	}))
	t.Cleanup(up.Close)
	return up, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), got...)
	}
}

// TestGeminiEscapedModel: an escaped "?" or "#" in the model segment
// never reaches the upstream as a query with the real key (it did:
// "/v1beta/models/x%3Fkey=1%23:generateContent" went out as
// "…/models/x?key=1"). The path is checked as the upstream will read it.
func TestGeminiEscapedModel(t *testing.T) {
	for _, path := range []string{
		"/v1beta/models/x%3Fkey=1%23:generateContent",
		"/v1beta/models/x%23:generateContent",
		"/v1beta/models/x%3f:generateContent",
		"/v1beta/models/x%25:generateContent",
	} {
		up, got := seen(t)
		p := start(t, Config{Mode: Record, Dialect: "gemini-generate-content", Upstream: up.URL, Key: realKey})
		status := rawRequest(t, p, "POST", path, `{"contents":[]}`)
		p.Close()
		if status != http.StatusNotFound || len(got()) != 0 || p.Report().Err() == nil {
			t.Errorf("%s: status %d, upstream saw %q, report %v; want 404, nothing, an error", path, status, got(), p.Report().Err())
		}
	}
}

// TestGeminiQueryKey: an agent that passes its key as Gemini's REST docs
// show ("?key=…") is recorded as one that sends the key header: the
// upstream gets the real key (in the header) and never the placeholder,
// the kept path holds no key, so a replay with another placeholder
// matches.
func TestGeminiQueryKey(t *testing.T) {
	up, got := seen(t)
	rec := start(t, Config{Mode: Record, Dialect: "gemini-generate-content", Upstream: up.URL, Key: realKey})
	const body = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`
	resp := post(t, context.Background(), rec.URL()+"/v1beta/models/gemini-2.5-flash:generateContent?key="+rec.Key()+"&alt=json", "", body)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	rec.Close()
	rep := rec.Report()
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if g := got(); len(g) != 1 || g[0] != "/v1beta/models/gemini-2.5-flash:generateContent?alt=json key="+realKey {
		t.Errorf("upstream saw %q, want the path without the placeholder and the real key in the header", g)
	}
	if path := rep.Exchanges[0].Request.Path; path != "/v1beta/models/gemini-2.5-flash:generateContent?alt=json" {
		t.Errorf("kept path %q, want it without the key", path)
	}

	p := start(t, Config{Dialect: "gemini-generate-content", Exchanges: []httplog.Exchange{rep.Exchanges[0]}})
	resp = post(t, context.Background(), p.URL()+"/v1beta/models/gemini-2.5-flash:generateContent?key="+p.Key()+"&alt=json", "", body)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	p.Close()
	if err := p.Report().Err(); err != nil || !strings.Contains(string(b), `"hi"`) {
		t.Errorf("replay with another placeholder: %v, answer %s", err, b)
	}
}
