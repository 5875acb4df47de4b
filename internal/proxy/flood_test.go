package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/httplog"
)

// TestCallCap: past MaxCalls a request is refused at once, in record (it
// never reaches the upstream with the key) and in replay (it is neither
// matched nor kept), and the report says how many calls the agent made
// and the cap, as an error that wraps ErrTooManyCalls.
func TestCallCap(t *testing.T) {
	up, n := counting(t)
	recorded := httplog.Exchange{Request: httplog.Request{Method: "POST", Path: "/chat/completions", Body: []byte(`{"n":0}`)},
		Response: httplog.Response{Status: 200, Body: []byte(`{}`)}}
	for _, cfg := range []Config{
		{Mode: Record, Dialect: "openai-chat", Upstream: up.URL, Key: realKey, MaxCalls: 3},
		{Dialect: "openai-chat", Exchanges: []httplog.Exchange{recorded}, MaxCalls: 3},
	} {
		t.Run(map[Mode]string{Record: "record", Replay: "replay"}[cfg.Mode], func(t *testing.T) {
			p := start(t, cfg)
			var refused []string
			for i := range 5 {
				resp := post(t, context.Background(), p.URL()+"/chat/completions", p.Key(), fmt.Sprintf(`{"n":%d}`, i))
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusBadRequest && resp.Header.Get(ErrorHeader) == "too many calls" {
					refused = append(refused, fmt.Sprint(i+1))
				}
			}
			p.Close()
			rep := p.Report()
			err := rep.Err()
			if got := strings.Join(refused, ","); got != "4,5" || rep.Refused != 2 {
				t.Errorf("refused requests %q (Report.Refused %d), want 4,5 (2)", got, rep.Refused)
			}
			if !errors.Is(err, ErrTooManyCalls) || !strings.Contains(fmt.Sprint(err), "the agent made 5 model calls, more than the cap of 3") {
				t.Errorf("report error %v, want it to name the calls and the cap (ErrTooManyCalls)", err)
			}
			if len(rep.Exchanges) > 3 {
				t.Errorf("kept %d exchanges, want at most the cap", len(rep.Exchanges))
			}
		})
	}
	if n.Load() != 3 {
		t.Errorf("the upstream got %d calls, want 3", n.Load())
	}
}

// TestDriftReportBounded: a flood of drifts is described up to MaxDrifts
// and counted past them: the failure stays a few lines, whatever the
// agent sent (10,000 drifts were 2 MB).
func TestDriftReportBounded(t *testing.T) {
	recorded := httplog.Exchange{Request: httplog.Request{Method: "POST", Path: "/chat/completions", Body: []byte(`{"messages":["a"]}`)},
		Response: httplog.Response{Status: 200, Body: []byte(`{}`)}}
	p := start(t, Config{Dialect: "openai-chat", Exchanges: []httplog.Exchange{recorded}})
	for i := range 40 {
		resp := post(t, context.Background(), p.URL()+"/chat/completions", p.Key(), fmt.Sprintf(`{"messages":["flood %d %s"]}`, i, strings.Repeat("x", 200)))
		resp.Body.Close()
	}
	p.Close()
	rep := p.Report()
	msg := fmt.Sprint(rep.Err())
	if len(rep.Drifts) != MaxDrifts || rep.MoreDrifts != 40-MaxDrifts || !strings.Contains(msg, fmt.Sprintf("and %d more request drifts", 40-MaxDrifts)) {
		t.Errorf("%d drifts described, %d more; error:\n%s", len(rep.Drifts), rep.MoreDrifts, msg)
	}
	if len(msg) > 8<<10 {
		t.Errorf("the report's error is %d bytes for 40 drifts, want it bounded", len(msg))
	}
	for _, d := range rep.Drifts {
		if d.Nearest != 1 {
			t.Errorf("drift %d: nearest %d, want 1", d.Arrival, d.Nearest)
		}
	}
}

// TestUnconsumedListBounded: a recording of thousands of calls the agent
// never made lists the first calls and counts the rest.
func TestUnconsumedListBounded(t *testing.T) {
	var ns []int
	for i := 1; i <= 5000; i++ {
		ns = append(ns, i)
	}
	msg := Report{Unconsumed: ns}.Err().Error()
	if !strings.Contains(msg, "19, 20 and 4980 more") || len(msg) > 300 {
		t.Errorf("error %q, want the first 20 calls and a count", msg)
	}
}
