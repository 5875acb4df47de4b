package proxy

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/httplog"
)

// start starts a proxy closed at the end of the test.
func start(t testing.TB, cfg Config) *Proxy {
	t.Helper()
	p, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// post sends body to url with the placeholder key, as an agent would.
func post(t testing.TB, ctx context.Context, url, key, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("X-Api-Key", key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// readEvent reads one SSE event (through its blank line) and returns its
// data lines joined.
func readEvent(br *bufio.Reader) (string, error) {
	var data []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return strings.Join(data, "\n"), err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			return strings.Join(data, "\n"), nil
		}
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			data = append(data, d)
		}
	}
}

// readAllEvents reads a whole SSE body.
func readAllEvents(t testing.TB, r io.Reader) ([]string, error) {
	t.Helper()
	br := bufio.NewReader(r)
	var out []string
	for {
		d, err := readEvent(br)
		if err == io.EOF && d == "" {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, d)
	}
}

// stream builds a streamed recorded response.
func stream(datas ...string) httplog.Response {
	r := httplog.Response{Status: 200, Stream: true, Header: map[string]string{"content-type": "text/event-stream"}}
	for _, d := range datas {
		r.Events = append(r.Events, httplog.SSEEvent{Data: []byte(d)})
	}
	return r
}

func exchange(path, body string, resp httplog.Response) httplog.Exchange {
	return httplog.Exchange{
		Request:  httplog.Request{Method: "POST", Path: path, Header: map[string]string{"content-type": "application/json"}, Body: []byte(body)},
		Response: resp,
	}
}

func contains(b []byte, s string) bool { return bytes.Contains(b, []byte(s)) }
