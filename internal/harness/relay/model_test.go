package relay

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/harness/harvest"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// racingCall is a recorded chat call that asks prompt and carries user,
// the request's own id as a token.
func racingCall(prompt, user string) httplog.Exchange {
	return httplog.Exchange{
		Request: httplog.Request{Method: "POST", Path: "/chat/completions", Header: map[string]string{"content-type": "application/json"},
			Body: []byte(`{"messages":[{"content":"` + prompt + `","role":"user"}],"model":"m","user":"` + user + `"}`)},
		Response: httplog.Response{Status: 200, Body: []byte(`{"answer":"` + prompt + `"}`)},
	}
}

// replayCalls starts a replay of recorded, sends each of sent (prompt,
// the live id) in order and returns the composed side; it fails the test
// when a call is not answered as recorded, unless drift is wanted.
func replayCalls(t *testing.T, recorded []httplog.Exchange, sent [][2]string) Composed {
	t.Helper()
	var bodies []string
	for _, s := range sent {
		bodies = append(bodies, `{"messages":[{"content":"`+s[0]+`","role":"user"}],"model":"m","user":"`+s[1]+`"}`)
	}
	return replayBodies(t, recorded, nil, bodies...)
}

// replayBodies is replayCalls with ignore rules and the bodies as sent.
func replayBodies(t *testing.T, recorded []httplog.Exchange, ignore []string, bodies ...string) Composed {
	t.Helper()
	rts := &harvest.Roots{Base: "/tmp/r", Cwd: "/tmp/r/workspace", Home: "/tmp/r/home"}
	m, err := StartModel(context.Background(), ModelConfig{Dialect: "openai-chat", Roots: rts, Ignore: ignore}, Source{Exchanges: recorded})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	for _, body := range bodies {
		resp, err := http.Post(m.URL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Logf("%.60s → %d %s", body, resp.StatusCode, got)
	}
	c, errs := m.Compose(context.Background(), "s1", sessionlog.AgentInfo{})
	if len(errs) > 0 && !c.RequestDrift {
		t.Fatal(errs)
	}
	return c
}

// loggedBody is the request body of the one call the composed log c holds,
// after checking that nothing drifted.
func loggedBody(t *testing.T, c Composed) string {
	t.Helper()
	if c.RequestDrift {
		t.Fatalf("drifted: %+v", c.Drifts)
	}
	_, xs, err := httplog.Decompose(c.Log, "composed", nil)
	if err != nil {
		t.Fatal(err)
	}
	return string(xs[0].Request.Body)
}

// TestRacingRequestsRenumber: two calls that race, each with an id of its
// own, replay in the other order than recorded, and the log numbers each
// id as the recording did (the turn's {{id:1}}, the title's {{id:2}}).
func TestRacingRequestsRenumber(t *testing.T) {
	const turnID, titleID = "0b0b7d4e-6a51-4f0e-9a55-0a6f1f6a1111", "9f1c2d3e-4b5a-4c6d-8e7f-222222222222"
	recorded := []httplog.Exchange{racingCall("turn", "{{id:1}}"), racingCall("title", "{{id:2}}")}
	c := replayCalls(t, recorded, [][2]string{{"title", titleID}, {"turn", turnID}})
	if c.RequestDrift {
		t.Fatalf("drifted: %+v", c.Drifts)
	}
	_, xs, err := httplog.Decompose(c.Log, "composed", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range xs {
		if !bytes.Equal(x.Request.Body, recorded[i].Request.Body) {
			t.Errorf("call %d logged as\n%s\nwant\n%s", i+1, x.Request.Body, recorded[i].Request.Body)
		}
	}
	for tok, want := range map[string]string{"{{id:1}}": turnID, "{{id:2}}": titleID} {
		if v, _ := c.Tokens.Value(tok); v != want {
			t.Errorf("%s stands for %q, want %q", tok, v, want)
		}
	}
	// What the run numbers next follows the recording's numbers.
	if tok, _ := c.Tokens.Identify("id", "5a5a5a5a-0000-4000-8000-333333333333"); tok != "{{id:3}}" {
		t.Errorf("the next new id is %s, want {{id:3}}", tok)
	}
}

// TestRacingRequestsSharedValue: a value the recording's two calls share
// must be one value live too: a second call with an id of its own where
// the recording repeats the first's is a drift, in either order.
func TestRacingRequestsSharedValue(t *testing.T) {
	recorded := []httplog.Exchange{racingCall("turn", "{{id:1}}"), racingCall("title", "{{id:1}}")}
	const a, b = "0b0b7d4e-6a51-4f0e-9a55-0a6f1f6a1111", "9f1c2d3e-4b5a-4c6d-8e7f-222222222222"
	for _, sent := range [][][2]string{{{"turn", a}, {"title", b}}, {{"title", a}, {"turn", b}}} {
		c := replayCalls(t, recorded, sent)
		if !c.RequestDrift || len(c.Drifts) != 1 {
			t.Fatalf("%v: drifts %+v, want the second call's", sent, c.Drifts)
		}
		// The drift names the new value by the number it would have had.
		if d := c.Drifts[0].String(); !strings.Contains(d, `request "{{id:2}}"`) {
			t.Errorf("drift %s, want the new value as {{id:2}}", d)
		}
	}
	// The same value in both, in the other order, replays.
	if c := replayCalls(t, recorded, [][2]string{{"title", a}, {"turn", a}}); c.RequestDrift {
		t.Errorf("one shared value drifted: %+v", c.Drifts)
	}
}

// BenchmarkNumbering is what matching by Numbering adds to a replayed
// request of about 40 KB (a long conversation, 400 tokens) that brings
// one new id: the masked fingerprint's mask and the renumbering against
// the recorded body, applied and committed.
func BenchmarkNumbering(b *testing.B) {
	var conv strings.Builder
	for i := range 400 {
		fmt.Fprintf(&conv, `{"content":"message %d of a long conversation, about {{toolCall:%d}} and its result","role":"user"},`, i, i%7+1)
	}
	body := func(id string) []byte {
		return []byte(`{"messages":[` + conv.String() + `{"content":"turn","role":"user"}],"model":"m","user":"` + id + `"}`)
	}
	live, recorded := body("{{id:900000001}}"), body("{{id:1}}")
	m := &Model{tok: liveContext(&harvest.Roots{Cwd: "/w", Home: "/h", Base: "/b"})}
	m.tok.Provisional(true)
	m.tok.Identify("id", "0b0b7d4e-6a51-4f0e-9a55-0a6f1f6a1111")
	m.tok.Provisional(false)
	b.SetBytes(int64(len(live)))
	for b.Loop() {
		maskNumbers(live)
		maskNumbers(recorded)
		apply, commit, ok := m.renumber([][]byte{nil, live}, [][]byte{nil, recorded})
		if !ok {
			b.Fatal("did not line up")
		}
		commit(apply([][]byte{nil, live}))
	}
}

// TestRenumberIgnoredPart: an ignored part that carries another number of
// new values than recorded does not stop the request from matching; its
// new values get the next numbers in the order the agent sent them, as
// they did before any renumbering.
func TestRenumberIgnoredPart(t *testing.T) {
	rec := racingCall("turn", "{{id:1}}")
	rec.Request.Body = []byte(`{"messages":[{"content":"turn","role":"user"}],"meta":{"z":"{{id:2}}"},"model":"m","user":"{{id:1}}"}`)
	const user, m1, m2 = "0b0b7d4e-6a51-4f0e-9a55-0a6f1f6a1111", "9f1c2d3e-4b5a-4c6d-8e7f-222222222222", "5a5a5a5a-0000-4000-8000-333333333333"
	// The agent sends meta's z before its a: that is the order they come in.
	body := `{"user":"` + user + `","meta":{"z":"` + m1 + `","a":"` + m2 + `"},"messages":[{"content":"turn","role":"user"}],"model":"m"}`
	got := loggedBody(t, replayBodies(t, []httplog.Exchange{rec}, []string{"/meta"}, body))
	if want := `{"messages":[{"content":"turn","role":"user"}],"meta":{"a":"{{id:3}}","z":"{{id:2}}"},"model":"m","user":"{{id:1}}"}`; got != want {
		t.Errorf("logged as\n%s\nwant\n%s", got, want)
	}
}

// TestRenumberIgnoredPartInOrder: new values in an ignored part and
// elsewhere, lined up with the recording's, get the recorded numbers
// everywhere, the ignored part's too, whatever their order in the body.
func TestRenumberIgnoredPartInOrder(t *testing.T) {
	rec := racingCall("turn", "{{id:2}}")
	rec.Request.Body = []byte(`{"messages":[{"content":"turn","role":"user"}],"meta":["{{id:1}}"],"model":"m","user":"{{id:2}}"}`)
	const user, meta = "0b0b7d4e-6a51-4f0e-9a55-0a6f1f6a1111", "9f1c2d3e-4b5a-4c6d-8e7f-222222222222"
	body := `{"meta":["` + meta + `"],"messages":[{"content":"turn","role":"user"}],"model":"m","user":"` + user + `"}`
	if got := loggedBody(t, replayBodies(t, []httplog.Exchange{rec}, []string{"/meta"}, body)); got != string(rec.Request.Body) {
		t.Errorf("logged as\n%s\nwant\n%s", got, rec.Request.Body)
	}
}
