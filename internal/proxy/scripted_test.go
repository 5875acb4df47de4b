package proxy_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/proxy"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// TestScriptedUpstreamRoundTrip records a two-call conversation per
// dialect through the proxy from the scripted upstream (the same server
// `acpsnap new -model` records through), composes the log, and replays it:
// the agent receives the very same bytes, and the replay composes the same
// log.
func TestScriptedUpstreamRoundTrip(t *testing.T) {
	hello := []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: "text"},
		{Type: model.TextDelta, Index: 0, Text: "Hello"},
		{Type: model.BlockEnd, Index: 0},
		{Type: model.Finish, Reason: "stop"},
	}
	tests := []struct {
		dialect, path string
		bodies        []string
	}{
		{"openai-chat", "/chat/completions", []string{
			`{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":"hi"}],"stream":true}`,
			`{"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":"hi"},{"role":"assistant","content":"Hello"},{"role":"user","content":"again"}],"stream":true}`,
		}},
		{"openai-responses", "/responses", []string{
			`{"model":"m","instructions":"sys","input":[{"role":"user","content":"hi"}],"stream":true}`,
			`{"model":"m","instructions":"sys","input":[{"role":"user","content":"hi"},{"role":"assistant","content":"Hello"},{"role":"user","content":"again"}],"stream":true}`,
		}},
		{"anthropic-messages", "/v1/messages", []string{
			`{"model":"m","max_tokens":10,"system":"sys","messages":[{"role":"user","content":"hi"}],"stream":true}`,
			`{"model":"m","max_tokens":10,"system":"sys","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"Hello"},{"role":"user","content":"again"}],"stream":true}`,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.dialect, func(t *testing.T) {
			up, err := replay.NewServer(replay.ServerConfig{Dialect: tc.dialect, Primary: replay.Script{
				{Kind: "chunks", Chunks: hello}, {Kind: "chunks", Chunks: hello},
			}})
			if err != nil {
				t.Fatal(err)
			}
			defer up.Close()
			rec, err := proxy.Start(context.Background(), proxy.Config{Mode: proxy.Record, Dialect: tc.dialect, Upstream: up.URL(), Key: "sk-test"})
			if err != nil {
				t.Fatal(err)
			}
			recorded := calls(t, rec.URL()+tc.path, tc.bodies)
			rec.Close()
			if err := rec.Report().Err(); err != nil {
				t.Fatal(err)
			}
			h := httplog.ComposedHeader{ID: "s", Dialect: tc.dialect, Agent: sessionlog.AgentInfo{Name: "test", Version: "1"}}
			pins := httplog.OpenPins(t.TempDir()).Overlay()
			log, err := httplog.Compose(context.Background(), rec.Report().Exchanges, h, pins)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(log), `"base":1`) || !strings.Contains(string(log), "{{pin:system:") {
				t.Errorf("log without follow-up or pin:\n%s", log)
			}
			_, xs, err := httplog.Decompose(log, "session.jsonl", pins)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := proxy.Start(context.Background(), proxy.Config{Dialect: tc.dialect, Exchanges: xs})
			if err != nil {
				t.Fatal(err)
			}
			replayed := calls(t, rep.URL()+tc.path, tc.bodies)
			rep.Close()
			if err := rep.Report().Err(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(recorded, replayed); diff != "" {
				t.Errorf("bytes the agent got (-recorded +replayed):\n%s", diff)
			}
			again, err := httplog.Compose(context.Background(), rep.Report().Exchanges, h, pins)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(log), string(again)); diff != "" {
				t.Errorf("composed logs (-recorded +replayed):\n%s", diff)
			}
		})
	}
}

// calls posts each body in turn and returns the response bodies.
func calls(t *testing.T, url string, bodies []string) []string {
	t.Helper()
	var out []string
	for _, b := range bodies {
		resp, err := http.Post(url, "application/json", strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", url, resp.StatusCode, got)
		}
		out = append(out, string(got))
	}
	return out
}
