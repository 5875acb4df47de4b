package deepseek

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/model"
)

// The agreement tests: replay.Server renders scripts into the dialect,
// the adapter parses them back; canonical scripts must come back unchanged.

func decodeScript(t *testing.T, js string) replay.Script {
	t.Helper()
	s, err := replay.DecodeScript(strings.NewReader(js), t.Name()+".json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func newReplayServer(t *testing.T, cfg replay.ServerConfig) *replay.Server {
	t.Helper()
	srv, err := replay.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func TestAgreementWithReplayServer(t *testing.T) {
	type testCase struct {
		name   string
		script string // one entry
	}
	tests := []testCase{{
		name: "text",
		script: `[{"kind":"chunks","chunks":[
			{"type":"block-start","index":0,"blockType":"text"},
			{"type":"text-delta","index":0,"text":"Hello, "},
			{"type":"text-delta","index":0,"text":"<world> & \"you\"\n"},
			{"type":"block-end","index":0},
			{"type":"finish","reason":"stop"}]}]`,
	}, {
		name: "reasoning and text with usage",
		script: `[{"kind":"chunks","chunks":[
			{"type":"block-start","index":0,"blockType":"reasoning"},
			{"type":"reasoning-delta","index":0,"text":"Think"},
			{"type":"reasoning-delta","index":0,"text":"ing."},
			{"type":"block-end","index":0},
			{"type":"block-start","index":1,"blockType":"text"},
			{"type":"text-delta","index":1,"text":"Done."},
			{"type":"block-end","index":1},
			{"type":"usage","inputTokens":120,"outputTokens":7},
			{"type":"finish","reason":"stop"}]}]`,
	}, {
		name: "two tool calls with pieces",
		script: `[{"kind":"chunks","chunks":[
			{"type":"block-start","index":0,"blockType":"text"},
			{"type":"text-delta","index":0,"text":"Let me look."},
			{"type":"block-end","index":0},
			{"type":"block-start","index":1,"blockType":"tool-call"},
			{"type":"tool-call-delta","index":1,"id":"{{toolCall:1}}","name":"read_file","argumentsDelta":""},
			{"type":"tool-call-delta","index":1,"id":"{{toolCall:1}}","argumentsDelta":"{\"path\":"},
			{"type":"tool-call-delta","index":1,"id":"{{toolCall:1}}","argumentsDelta":"\"{{cwd}}/a.go\"}"},
			{"type":"block-end","index":1},
			{"type":"block-start","index":2,"blockType":"tool-call"},
			{"type":"tool-call-delta","index":2,"id":"call_2","name":"bash","argumentsDelta":"{\"command\""},
			{"type":"tool-call-delta","index":2,"id":"call_2","argumentsDelta":":\"ls\"}"},
			{"type":"block-end","index":2},
			{"type":"usage","inputTokens":50,"outputTokens":30},
			{"type":"finish","reason":"tool-calls"}]}]`,
	}, {
		name: "max tokens",
		script: `[{"kind":"chunks","chunks":[
			{"type":"block-start","index":0,"blockType":"text"},
			{"type":"text-delta","index":0,"text":"Once upon a"},
			{"type":"block-end","index":0},
			{"type":"usage","inputTokens":10,"outputTokens":3},
			{"type":"finish","reason":"max-tokens"}]}]`,
	}, {
		name: "model-side stop without a finish reason of its own",
		script: `[{"kind":"chunks","chunks":[
			{"type":"block-start","index":0,"blockType":"text"},
			{"type":"text-delta","index":0,"text":"I cannot"},
			{"type":"block-end","index":0},
			{"type":"usage","inputTokens":9,"outputTokens":2},
			{"type":"finish","reason":"error","error":"model stopped with finish_reason \"content_filter\""}]}]`,
	}, {
		name:   "throw RATE_LIMIT not accepted",
		script: `[{"kind":"throw","chunks":[],"message":"Rate limit reached for requests","code":"RATE_LIMIT"}]`,
	}, {
		name:   "throw AUTH not accepted",
		script: `[{"kind":"throw","chunks":[],"message":"Authentication Fails","code":"AUTH"}]`,
	}, {
		name:   "throw UNAVAILABLE not accepted",
		script: `[{"kind":"throw","chunks":[],"message":"Service is too busy","code":"UNAVAILABLE"}]`,
	}, {
		name:   "throw BAD_REQUEST not accepted",
		script: `[{"kind":"throw","chunks":[],"message":"Invalid request","code":"BAD_REQUEST"}]`,
	}, {
		name:   "throw INTERNAL not accepted",
		script: `[{"kind":"throw","chunks":[],"message":"boom","code":"INTERNAL"}]`,
	}, {
		name: "throw STREAM accepted mid-stream",
		script: `[{"kind":"throw","accepted":true,"message":"connection reset","code":"STREAM","chunks":[
			{"type":"block-start","index":0,"blockType":"reasoning"},
			{"type":"reasoning-delta","index":0,"text":"Hmm"},
			{"type":"block-end","index":0},
			{"type":"block-start","index":1,"blockType":"tool-call"},
			{"type":"tool-call-delta","index":1,"id":"call_9","name":"bash","argumentsDelta":"{\"comm"}]}]`,
	}, {
		name: "throw UNAVAILABLE accepted mid-stream",
		script: `[{"kind":"throw","accepted":true,"message":"overloaded","code":"UNAVAILABLE","chunks":[
			{"type":"block-start","index":0,"blockType":"text"},
			{"type":"text-delta","index":0,"text":"Par"}]}]`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			script := decodeScript(t, tc.script)
			srv := newReplayServer(t, replay.ServerConfig{Primary: script})
			got, gotErr := collect(t, New(Config{APIKey: "k", BaseURL: srv.URL()}), model.Request{Messages: []model.Message{{Role: "user", Content: "hi"}}})
			e := script[0]
			var wantErr *model.ProviderError
			if e.Kind == replay.KindThrow {
				wantErr = perr(e.Code, e.Message)
			}
			if diff := cmp.Diff(e.Chunks, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("chunks (-script +adapter):\n%s", diff)
			}
			if diff := cmp.Diff(wantErr, gotErr); diff != "" {
				t.Errorf("error (-script +adapter):\n%s", diff)
			}
			if r := srv.Report(); r.Fixtures[0].Left != 0 || len(r.Errors) != 0 {
				t.Errorf("server report = %+v, want the entry served and no errors", r)
			}
		})
	}
}

func TestAgreementRouting(t *testing.T) {
	say := func(s string) string {
		return `[{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"text"},{"type":"text-delta","index":0,"text":"` + s + `"},{"type":"block-end","index":0},{"type":"finish","reason":"stop"}]}]`
	}
	srv := newReplayServer(t, replay.ServerConfig{
		Primary:  decodeScript(t, say("primary")),
		Children: map[string]replay.Script{"call_a": decodeScript(t, say("child a")), "call_b": decodeScript(t, say("child b"))},
	})
	p := New(Config{BaseURL: srv.URL() + "/v1"})
	type testCase struct {
		spawnedBy string
		want      string // the text, or the error code
	}
	for _, tc := range []testCase{
		{"call_b", "child b"},
		{"", "primary"},
		{"call_a", "child a"},
		{"call_a", "REPLAY"}, // exhausted
		{"call_z", "REPLAY"}, // unknown child
	} {
		chunks, err := collect(t, p, model.Request{SpawnedBy: tc.spawnedBy})
		var got string
		switch {
		case err != nil && strings.Contains(err.Message, "re-record"):
			got = err.Code
		case err != nil:
			got = err.Error()
		case len(chunks) > 1:
			got = chunks[1].Text
		}
		if got != tc.want {
			t.Errorf("SpawnedBy %q: got %q (chunks %v), want %q", tc.spawnedBy, got, chunks, tc.want)
		}
	}
	for i, r := range srv.Requests() {
		if r.Path != "/v1/chat/completions" {
			t.Errorf("request %d: path %s, want /v1/chat/completions", i, r.Path)
		}
	}
}

// firstRead is a transport that closes started when the first response
// body bytes arrive.
type firstRead struct {
	started chan struct{}
}

func (f *firstRead) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil {
		resp.Body = &signalBody{ReadCloser: resp.Body, started: f.started}
	}
	return resp, err
}

type signalBody struct {
	io.ReadCloser
	started chan struct{}
	once    bool
}

func (b *signalBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && !b.once {
		b.once = true
		close(b.started)
	}
	return n, err
}

func TestAgreementHang(t *testing.T) {
	srv := newReplayServer(t, replay.ServerConfig{Primary: decodeScript(t, `[{"kind":"hang"}]`)})
	started := make(chan struct{})
	p := New(Config{BaseURL: srv.URL(), HTTPClient: &http.Client{Transport: &firstRead{started}}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	var got []model.Chunk
	go func() {
		errc <- p.Stream(ctx, model.Request{}, func(c model.Chunk) error {
			got = append(got, c)
			return nil
		})
	}()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("Stream = %v, want context.Canceled", err)
	}
	if len(got) != 0 {
		t.Errorf("chunks = %v, want none (the hang event's content is empty)", got)
	}
	if err := srv.Close(); err != nil { // returns once the hung handler saw the client go
		t.Errorf("Close: %v", err)
	}
}
