package proxy

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/google/go-cmp/cmp"
)

func chatBody(system string, users ...string) string {
	msgs := []string{fmt.Sprintf(`{"role":"system","content":%q}`, system)}
	for _, u := range users {
		msgs = append(msgs, fmt.Sprintf(`{"role":"user","content":%q}`, u))
	}
	return `{"model":"m","messages":[` + strings.Join(msgs, ",") + `],"stream":true}`
}

// TestReplayConcurrentReversed replays two conversations recorded
// interleaved (A1 B1 A2 B2, plus an identical request twice) with the
// requests arriving in reverse and concurrently: each gets its own answer.
func TestReplayConcurrentReversed(t *testing.T) {
	xs := []httplog.Exchange{
		exchange("/chat/completions", chatBody("main", "go"), stream(`"A1"`)),
		exchange("/chat/completions", chatBody("child", "sub"), stream(`"B1"`)),
		exchange("/chat/completions", chatBody("main", "go", "more"), stream(`"A2"`)),
		exchange("/chat/completions", chatBody("child", "sub", "more"), stream(`"B2"`)),
		exchange("/chat/completions", chatBody("main", "again"), stream(`"same-1"`)),
		exchange("/chat/completions", chatBody("main", "again"), stream(`"same-2"`)),
	}
	p := start(t, Config{Dialect: "openai-chat", Exchanges: xs})
	send := func(body string) string {
		resp := post(t, context.Background(), p.URL()+"/chat/completions", p.Key(), body)
		defer resp.Body.Close()
		evs, err := readAllEvents(t, resp.Body)
		if err != nil || len(evs) != 1 {
			t.Errorf("%s: events %v, %v", body, evs, err)
			return ""
		}
		return evs[0]
	}
	var wg sync.WaitGroup
	got := make([]string, 4)
	for i := 3; i >= 0; i-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = send(string(xs[i].Request.Body))
		}()
	}
	wg.Wait()
	if diff := cmp.Diff([]string{`"A1"`, `"B1"`, `"A2"`, `"B2"`}, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s", diff)
	}
	// identical requests take their group's exchanges in call order
	if a, b := send(chatBody("main", "again")), send(chatBody("main", "again")); a != `"same-1"` || b != `"same-2"` {
		t.Errorf("identical requests got %s then %s", a, b)
	}
	p.Close()
	rep := p.Report()
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if rep.Served != 6 || len(rep.Exchanges) != 6 {
		t.Errorf("served %d, %d exchanges", rep.Served, len(rep.Exchanges))
	}
	for i, x := range rep.Exchanges { // recorded order, whatever the arrival order
		if string(x.Request.Body) != string(xs[i].Request.Body) {
			t.Errorf("exchange %d: %s, want %s", i+1, x.Request.Body, xs[i].Request.Body)
		}
	}
}

func responsesBody(prompt string, items ...string) string {
	in := []string{fmt.Sprintf(`{"type":"message","role":"user","content":[{"type":"input_text","text":%q}]}`, prompt)}
	in = append(in, items...)
	return `{"model":"gpt-5.4","instructions":"sys","input":[` + strings.Join(in, ",") + `],"prompt_cache_key":"k1","stream":true}`
}

func TestDriftNamesThePath(t *testing.T) {
	call := `{"type":"function_call","call_id":"c1","name":"shell","arguments":"{}"}`
	out := `{"type":"function_call_output","call_id":"c1","output":"a.go"}`
	xs := []httplog.Exchange{
		exchange("/responses", responsesBody("list the files"), stream(`{"n":1}`)),
		exchange("/responses", responsesBody("list the files", call, out), stream(`{"n":2}`)),
		exchange("/responses", responsesBody("hello"), stream(`{"n":3}`)),
	}
	p := start(t, Config{Dialect: "openai-responses", Exchanges: xs, Ignore: []string{"/prompt_cache_key"}})
	// call 1 matches though its prompt_cache_key differs (ignored)
	resp := post(t, context.Background(), p.URL()+"/responses", p.Key(), strings.Replace(responsesBody("list the files"), "k1", "k2", 1))
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("call 1: status %d", resp.StatusCode)
	}
	changed := strings.Replace(responsesBody("list the files", call, out), `"output":"a.go"`, `"output":"b.go"`, 1)
	resp = post(t, context.Background(), p.URL()+"/responses", p.Key(), changed)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || resp.Header.Get("X-Should-Retry") != "false" || resp.Header.Get(ErrorHeader) != "request drift" ||
		!contains(body, `{"error":{"message":"acpsnap: request drift: this request matches no recorded exchange; re-record the scenario (nearest call 2 differs at $.input[2].output)","type":"api_error","code":"BAD_REQUEST"}}`) {
		t.Errorf("miss answered %d %v %s", resp.StatusCode, resp.Header, body)
	}
	p.Close()
	rep := p.Report()
	if len(rep.Drifts) != 1 {
		t.Fatalf("drifts = %+v", rep.Drifts)
	}
	d := rep.Drifts[0]
	want := []Change{{Path: "$.input[2].output", Recorded: `"a.go"`, Request: `"b.go"`}}
	if diff := cmp.Diff(want, d.Changes); diff != "" || d.Nearest != 2 {
		t.Errorf("nearest %d, changes (-want +got):\n%s", d.Nearest, diff)
	}
	msg := rep.Err().Error()
	for _, s := range []string{"nearest recorded call 2 differs at:\n  $.input[2].output: recorded \"a.go\", request \"b.go\"", "recorded calls never requested: 2, 3"} {
		if !strings.Contains(msg, s) {
			t.Errorf("report error lacks %q:\n%s", s, msg)
		}
	}
	if !rep.RequestDrift() || len(rep.Exchanges) != 2 || rep.Exchanges[1].Response.Status != 400 {
		t.Errorf("report: %+v", rep)
	}
}

func TestNormalizeAndExpand(t *testing.T) {
	xs := []httplog.Exchange{exchange("/v1/messages", `{"messages":[{"role":"user","content":"in {{cwd}}"}]}`, stream(`{"text":"wrote {{cwd}}/a"}`))}
	p := start(t, Config{Dialect: "anthropic-messages", Exchanges: xs,
		Normalize: func(b []byte) ([]byte, error) {
			return []byte(strings.ReplaceAll(string(b), "/live/dir", "{{cwd}}")), nil
		},
		Expand: func(b []byte) []byte { return []byte(strings.ReplaceAll(string(b), "{{cwd}}", "/live/dir")) },
	})
	resp := post(t, context.Background(), p.URL()+"/v1/messages", p.Key(), `{"messages":[{"role":"user","content":"in /live/dir"}]}`)
	evs, err := readAllEvents(t, resp.Body)
	resp.Body.Close()
	if err != nil || len(evs) != 1 || evs[0] != `{"text":"wrote /live/dir/a"}` {
		t.Errorf("events %v, %v", evs, err)
	}
	p.Close()
	rep := p.Report()
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(xs, rep.Exchanges); diff != "" {
		t.Errorf("kept exchanges are the normalized ones (-want +got):\n%s", diff)
	}
}

func TestOverrides(t *testing.T) {
	xs := []httplog.Exchange{
		exchange("/c", `{"n":1}`, stream(`1`, `2`, `3`)),
		exchange("/c", `{"n":2}`, stream(`1`, `2`, `3`)),
		exchange("/c", `{"n":3}`, stream(`1`, `2`, `3`)),
	}
	ov, err := ParseOverrides([]byte(`{"patches":[
		{"call":1,"status":429,"headers":{"retry-after":"0"},"body":{"error":{"message":"slow"}}},
		{"call":2,"disconnectAfter":2},
		{"call":3,"hangAfter":1}]}`), "replay.override.json")
	if err != nil {
		t.Fatal(err)
	}
	type hang struct {
		call int
		sent []string
	}
	hung := make(chan hang, 1)
	p := start(t, Config{Dialect: "openai-chat", Exchanges: xs, Overrides: ov, OnHang: func(call int, sent [][]byte) {
		h := hang{call: call}
		for _, d := range sent {
			h.sent = append(h.sent, string(d))
		}
		hung <- h
	}})

	resp := post(t, context.Background(), p.URL()+"/c", p.Key(), `{"n":1}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "0" || string(body) != `{"error":{"message":"slow"}}` {
		t.Errorf("status patch: %d %v %s", resp.StatusCode, resp.Header, body)
	}

	resp = post(t, context.Background(), p.URL()+"/c", p.Key(), `{"n":2}`)
	evs, err := readAllEvents(t, resp.Body)
	resp.Body.Close()
	if err == nil || len(evs) != 2 {
		t.Errorf("disconnect patch: events %v, err %v (want 2 events, then a broken stream)", evs, err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	resp = post(t, ctx, p.URL()+"/c", p.Key(), `{"n":3}`)
	br := bufio.NewReader(resp.Body)
	if ev, err := readEvent(br); err != nil || ev != "1" {
		t.Errorf("hang patch: first event %q, %v", ev, err)
	}
	select {
	case h := <-hung: // the call, and what the agent got of it: the harness's cancel point
		if diff := cmp.Diff(hang{call: 3, sent: []string{"1"}}, h, cmp.AllowUnexported(hang{})); diff != "" {
			t.Errorf("OnHang (-want +got):\n%s", diff)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OnHang never called")
	}
	cancel() // the agent gives up, as promptAndCancel does
	resp.Body.Close()
	p.Close()
	rep := p.Report()
	var ends []string
	var counts []int
	for _, x := range rep.Exchanges {
		ends = append(ends, x.Response.End)
		counts = append(counts, len(x.Response.Events))
	}
	if diff := cmp.Diff([]string{"", httplog.EndDisconnect, httplog.EndHang}, ends); diff != "" {
		t.Errorf("ends (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int{0, 2, 1}, counts); diff != "" {
		t.Errorf("events served (-want +got):\n%s", diff)
	}
	if rep.Exchanges[0].Response.Status != 429 || rep.Err() != nil {
		t.Errorf("report: %+v, %v", rep.Exchanges[0].Response, rep.Err())
	}
}

func TestRecordedEndIsReplayed(t *testing.T) {
	r := stream(`1`)
	r.End = httplog.EndDisconnect
	p := start(t, Config{Dialect: "openai-chat", Exchanges: []httplog.Exchange{exchange("/c", `{}`, r)}})
	resp := post(t, context.Background(), p.URL()+"/c", p.Key(), `{}`)
	evs, err := readAllEvents(t, resp.Body)
	resp.Body.Close()
	if err == nil || len(evs) != 1 {
		t.Errorf("events %v, err %v: want 1 event then a broken stream", evs, err)
	}
}

// A recording the agent left mid-stream (it aborted its turn, say) is
// served up to where it was left, then waits for the agent to leave again,
// and the replayed exchange ends "cancel" as the recorded one did.
func TestRecordedCancelIsReplayed(t *testing.T) {
	r := stream(`1`, `2`)
	r.End = httplog.EndCancel
	var hung bool
	p := start(t, Config{Dialect: "openai-chat", Exchanges: []httplog.Exchange{exchange("/c", `{}`, r)}, OnHang: func(int, [][]byte) { hung = true }})
	ctx, cancel := context.WithCancel(context.Background())
	resp := post(t, ctx, p.URL()+"/c", p.Key(), `{}`)
	br := bufio.NewReader(resp.Body)
	for _, want := range []string{"1", "2"} {
		if ev, err := readEvent(br); err != nil || ev != want {
			t.Fatalf("event %q, %v; want %q", ev, err, want)
		}
	}
	cancel()
	resp.Body.Close()
	for deadline := time.Now().Add(10 * time.Second); p.Report().Exchanges[0].Response.End == "" && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond) // until the proxy saw the agent leave
	}
	p.Close()
	rep := p.Report()
	if got := rep.Exchanges[0].Response; got.End != httplog.EndCancel || len(got.Events) != 2 {
		t.Errorf("replayed end %q with %d events, want %q with 2", got.End, len(got.Events), httplog.EndCancel)
	}
	if hung {
		t.Error("OnHang called for a recorded cancel: it is the cancel point of hangAfter patches only")
	}
	if err := rep.Err(); err != nil {
		t.Errorf("report: %v", err)
	}
}

func TestParseOverridesErrors(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"two kinds", `{"patches":[{"call":1,"status":500,"hangAfter":1}]}`, `o.json:1: $.patches[0].hangAfter: a patch has one of status, disconnectAfter, hangAfter (this one also has status)`},
		{"no kind", `{"patches":[{"call":1}]}`, `o.json:1: $.patches[0]: a patch needs one of`},
		{"body without status", "{\"patches\":[\n{\"call\":1,\"hangAfter\":1,\"body\":{}}]}", `o.json:2: $.patches[0].body: unknown key`},
		{"call 0", `{"patches":[{"call":0,"hangAfter":1}]}`, `$.patches[0].call: is 0, want a call number from 1`},
		{"twice", `{"patches":[{"call":1,"hangAfter":1},{"call":1,"status":500}]}`, `$.patches[1].call: call 1 is patched twice`},
		{"bad status", `{"patches":[{"call":1,"status":1000}]}`, `$.patches[0].status: is 1000, want an HTTP status`},
		{"negative", `{"patches":[{"call":1,"disconnectAfter":-1}]}`, `$.patches[0].disconnectAfter: is -1, want an event count`},
		{"duplicate key", `{"patches":[{"call":1,"call":2,"hangAfter":1}]}`, `$.patches[0].call: duplicate key`},
		{"bare array", `[]`, `$: want an overrides object, got an array`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseOverrides([]byte(tc.in), "o.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	ov, _ := ParseOverrides([]byte(`{"patches":[{"call":2,"hangAfter":1}]}`), "o.json")
	if _, err := Start(context.Background(), Config{Dialect: "openai-chat", Overrides: ov, Exchanges: []httplog.Exchange{exchange("/c", `{}`, stream())}}); err == nil ||
		!strings.Contains(err.Error(), "o.json:1: call 2: the recording has 1 calls") {
		t.Errorf("beyond the recording: %v", err)
	}
}

// TestRecordComposeReplay is the whole loop: record through an upstream,
// compose the log with pins, decompose it, replay it offline.
func TestRecordComposeReplay(t *testing.T) {
	release := make(chan struct{})
	close(release)
	up, _ := upstream(t, func(http.Header) string { return "" }, release)
	rec := start(t, Config{Mode: Record, Dialect: "openai-chat", Upstream: up.URL, Key: realKey})
	bodies := []string{chatBody("sys", "one"), chatBody("sys", "one", "two")}
	for _, b := range bodies {
		resp := post(t, context.Background(), rec.URL()+"/chat/completions", rec.Key(), b)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	rec.Close()
	pins := httplog.OpenPins(t.TempDir()).Overlay()
	log, err := httplog.Compose(context.Background(), rec.Report().Exchanges, httplog.ComposedHeader{Dialect: "openai-chat"}, pins)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(log, `"base":1`) || !contains(log, httplog.Placeholder(httplog.PinSystem, []byte("sys"))) || contains(log, realKey) {
		t.Errorf("log:\n%s", log)
	}
	h, xs, err := httplog.Decompose(log, "session.jsonl", pins)
	if err != nil {
		t.Fatal(err)
	}
	p := start(t, Config{Dialect: h.Dialect, Exchanges: xs})
	var got [][]string
	for _, b := range bodies {
		resp := post(t, context.Background(), p.URL()+"/chat/completions", p.Key(), b)
		evs, err := readAllEvents(t, resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, evs)
	}
	p.Close()
	if err := p.Report().Err(); err != nil {
		t.Fatal(err)
	}
	replayed, err := httplog.Compose(context.Background(), p.Report().Exchanges, httplog.ComposedHeader{Dialect: "openai-chat"}, pins)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(log), string(replayed)); diff != "" {
		t.Errorf("the replay composes another log (-recorded +replayed):\n%s", diff)
	}
	if len(got) != 2 || len(got[1]) != 3 || got[1][2] != "[DONE]" {
		t.Errorf("replayed events: %q", got)
	}
}

// TestDriftPrefersSameThread: a subagent's changed request is compared with
// the subagent's recorded call (same system prompt), not with the main
// conversation's call of the same length.
func TestDriftPrefersSameThread(t *testing.T) {
	body := func(system, text string) string {
		return fmt.Sprintf(`{"system":%q,"messages":[{"role":"user","content":%q}]}`, system, text)
	}
	xs := []httplog.Exchange{
		exchange("/v1/messages", body("main", "fix the bug"), stream(`{}`)),
		exchange("/v1/messages", body("explore", "find the bug"), stream(`{}`)),
	}
	p := start(t, Config{Dialect: "anthropic-messages", Exchanges: xs})
	resp := post(t, context.Background(), p.URL()+"/v1/messages", p.Key(), body("explore", "fix the bug"))
	resp.Body.Close()
	p.Close()
	rep := p.Report()
	if len(rep.Drifts) != 1 || rep.Drifts[0].Nearest != 2 {
		t.Fatalf("drifts %+v, want call 2 as nearest", rep.Drifts)
	}
	want := []Change{{Path: "$.messages[0].content", Recorded: `"find the bug"`, Request: `"fix the bug"`}}
	if diff := cmp.Diff(want, rep.Drifts[0].Changes); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestReplayJSONBody(t *testing.T) {
	x := exchange("/v1/messages/count_tokens?beta=true", `{"messages":[{"role":"user","content":"hi"}]}`,
		httplog.Response{Status: 200, Header: map[string]string{"content-type": "application/json"}, Body: []byte(`{"input_tokens":7}`)})
	p := start(t, Config{Dialect: "anthropic-messages", Exchanges: []httplog.Exchange{x}})
	resp := post(t, context.Background(), p.URL()+"/v1/messages/count_tokens?beta=true", p.Key(), `{"messages":[{"content":"hi","role":"user"}]}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || string(body) != `{"input_tokens":7}` {
		t.Errorf("got %d %v %s", resp.StatusCode, resp.Header, body)
	}
	p.Close()
	if err := p.Report().Err(); err != nil {
		t.Error(err) // key order is not identity
	}
}

// TestReplayRefusesRepeatedKey: a request body that repeats a key is
// refused with its path, never matched on the last one.
func TestReplayRefusesRepeatedKey(t *testing.T) {
	xs := []httplog.Exchange{exchange("/chat/completions", `{"model":"b"}`, stream(`"A"`))}
	p := start(t, Config{Dialect: "openai-chat", Exchanges: xs})
	resp := post(t, context.Background(), p.URL()+"/chat/completions", p.Key(), `{"model":"a","model":"b"}`)
	resp.Body.Close()
	p.Close()
	err := p.Report().Err()
	if resp.StatusCode < 400 || err == nil || !strings.Contains(err.Error(), "request 1: normalize: $.model: duplicate key") {
		t.Errorf("status %d, report error %v; want a refusal naming $.model", resp.StatusCode, err)
	}
}
