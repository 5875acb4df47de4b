package proxy

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/google/go-cmp/cmp"
)

// dial opens a connection to p and returns a function that sends one
// call on it, as an agent's HTTP client would, and a reader of the answers.
func dial(t *testing.T, p *Proxy) (net.Conn, func(), *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", p.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	base := strings.TrimPrefix(p.URL(), "http://"+p.ln.Addr().String())
	call := func() {
		fmt.Fprintf(conn, "POST %s/c HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}", base)
	}
	return conn, call, bufio.NewReader(conn)
}

// TestReplayedLogIgnoresClient: what the replay keeps of a call is what
// was recorded, whatever the client does with the connection once the
// status line came (an SDK that closes on an error's status, one that
// reads a byte at a time, one that sends its next call on the same
// connection). Each way is tried many times: a race shows as one miss.
func TestReplayedLogIgnoresClient(t *testing.T) {
	errBody := `{"error":{"message":"overloaded","type":"server_error"}}`
	failed := httplog.Response{Status: 500, Header: map[string]string{"content-type": "application/json"}, Body: []byte(errBody)}
	long := stream(`"a"`, `"b"`, `"c"`, `"d"`, `"e"`, `"f"`, `"g"`, `"h"`)
	type client func(t *testing.T, p *Proxy)
	closeOnStatus := func(t *testing.T, p *Proxy) {
		conn, call, br := dial(t, p)
		call()
		if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 ") {
			t.Fatalf("status line %q, %v", line, err)
		}
		conn.Close()
	}
	slowly := func(t *testing.T, p *Proxy) {
		conn, call, br := dial(t, p)
		defer conn.Close()
		call()
		for i := 1; i <= 64; i++ { // then it leaves, mid-stream
			if _, err := br.ReadByte(); err != nil {
				break
			}
			if i%8 == 0 {
				time.Sleep(time.Millisecond)
			}
		}
	}
	reuse := func(t *testing.T, p *Proxy) {
		conn, call, br := dial(t, p)
		defer conn.Close()
		for range 2 {
			call()
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != 500 {
				t.Fatalf("status %d, body: %v", resp.StatusCode, err)
			}
			resp.Body.Close()
		}
	}
	tests := []struct {
		name     string
		recorded httplog.Response
		calls    int
		client   client
		runs     int
	}{
		{"an error, closed on its status line", failed, 1, closeOnStatus, 100},
		{"a stream, closed on its status line", long, 1, closeOnStatus, 100},
		{"a stream, read slowly", long, 1, slowly, 20},
		{"two errors on one connection", failed, 2, reuse, 20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var xs []httplog.Exchange
			for range tc.calls {
				xs = append(xs, exchange("/c", `{}`, tc.recorded))
			}
			for i := range tc.runs {
				p := start(t, Config{Dialect: "openai-chat", Exchanges: xs})
				tc.client(t, p)
				p.Close()
				rep := p.Report()
				if err := rep.Err(); err != nil {
					t.Fatalf("replay %d: %v", i+1, err)
				}
				for _, x := range rep.Exchanges {
					if diff := cmp.Diff(tc.recorded, x.Response); diff != "" {
						t.Fatalf("replay %d keeps another response than the recorded one (-recorded +replayed):\n%s", i+1, diff)
					}
				}
			}
		})
	}
}
