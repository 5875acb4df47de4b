package harness_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/testagents/fakeagent"
)

// TestRunDrivesTheClientSurface runs every op beyond new/prompt/cancel
// against the fake agent and checks what reached it, across a restart.
func TestRunDrivesTheClientSurface(t *testing.T) {
	answered := []fakeagent.Action{{Reply: json.RawMessage(`{}`)}}
	sc := scenario{
		script: fakeagent.Script{
			Methods: map[string][]fakeagent.Action{
				"session/set_mode": answered, "session/set_config_option": {{Reply: json.RawMessage(`{"configOptions":[]}`)}},
				"session/set_model": answered, "authenticate": answered, "session/list": {{Reply: json.RawMessage(`{"sessions":[]}`)}},
				"session/load": answered, "session/resume": answered, "session/fork": {{Reply: json.RawMessage(`{"sessionId":"forked"}`)}},
				"session/close": answered, "_x/echo": {{Reply: json.RawMessage(`{"echo":true}`)}},
			},
			Prompts: [][]fakeagent.Action{{
				{TurnStart: true},
				{Call: "_x/ask", Params: json.RawMessage(`{"q":1}`)},
				{Call: "_x/ask"},
				{Call: "weird/method"},
				{Call: "elicitation/create", Params: json.RawMessage(`{"sessionId":"sess-1","message":"name?","requestedSchema":{"type":"object","properties":{}}}`)},
				{TurnEnd: "completed"},
			}},
		},
		input: input(t, []map[string]any{
			op("initialize"),
			op("newSession"),
			op("setMode", "modeId", "plan"),
			op("setConfigOption", "configId", "model", "value", "fast"),
			op("setConfigOption", "configId", "brave", "value", true),
			op("setModel", "modelId", "m1"),
			op("authenticate", "methodId", "key"),
			op("listSessions", "cwd", "{{cwd}}"),
			op("prompt", "text", "hi"),
			op("request", "method", "_x/echo", "params", map[string]any{"s": "{{sessionId}}", "c": "{{cwd}}"}),
			op("requestExpectError", "method", "_x/missing"),
			op("notify", "method", "_x/note", "params", []any{"{{session:1}}"}),
			op("restartAgent"),
			op("initialize"),
			op("loadSession", "session", 1),
			op("resumeSession"),
			op("forkSession"),
			op("closeSession", "session", 1),
		}, map[string]any{"clientAnswers": []map[string]any{
			{"method": "_x/ask", "result": map[string]any{"a": 42}},
			{"method": "weird/method", "error": map[string]any{"code": -32000, "message": "scripted"}},
			{"method": "elicitation/create", "result": map[string]any{"action": "decline"}},
		}}),
	}
	res, err := run(t, sc.write(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`<- session/set_mode {"modeId":"plan","sessionId":"sess-1"}`,
		`<- session/set_config_option {"configId":"model","sessionId":"sess-1","value":"fast"}`,
		`<- session/set_config_option {"configId":"brave","sessionId":"sess-1","type":"boolean","value":true}`,
		`<- session/set_model {"modelId":"m1","sessionId":"sess-1"}`,
		`<- authenticate {"methodId":"key"}`,
		`<- session/list {"cwd":"` + res.Cwd + `"}`,
		`<- _x/echo {"c":"` + res.Cwd + `","s":"sess-1"}`,
		`<- _x/missing`,
		`<- notification _x/note ["sess-1"]`,
		"[acpsnap: agent restarted (incarnation 2)]",
		`<- session/load {"cwd":"` + res.Cwd + `","mcpServers":[],"sessionId":"sess-1"}`,
		`<- session/resume {"cwd":"` + res.Cwd + `","sessionId":"sess-1"}`,
		`<- session/fork {"cwd":"` + res.Cwd + `","sessionId":"sess-1"}`,
		`<- session/close {"sessionId":"sess-1"}`,
	} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("agent stderr lacks %s\nstderr:\n%s", want, res.Stderr)
		}
	}
	if got := strings.Count(res.Stderr, "<- initialize"); got != 2 {
		t.Errorf("%d initialize requests reached the agents, want 2 (one per incarnation)", got)
	}

	// The agent's requests and the raw responses are on stdout.
	var got []string
	for _, line := range res.Stdout {
		var m struct {
			ID     any             `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
		}
		json.Unmarshal(line, &m)
		if id, ok := m.ID.(string); ok || strings.HasPrefix(m.Method, "_") || m.Method == "weird/method" || m.Method == "elicitation/create" {
			got = append(got, strings.TrimSpace(id+" "+m.Method+" "+string(m.Result)))
		}
	}
	want := []string{"_x/ask", "_x/ask", "weird/method", "elicitation/create", `acpsnap-1  {"echo":true}`, "acpsnap-2"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stdout (-want +got):\n%s", diff)
	}

	// What the client answered, as the agent logged it.
	var answers []string
	for _, e := range events(t, res.Logs[0], "client/answer") {
		b, _ := json.Marshal(e)
		answers = append(answers, string(b))
	}
	wantAnswers := []string{
		`{"error":null,"method":"_x/ask","result":{"a":42}}`,
		`{"error":{"code":-32601,"message":"Method not found","data":{"method":"_x/ask"}},"method":"_x/ask","result":null}`,
		`{"error":{"code":-32000,"message":"scripted"},"method":"weird/method","result":null}`,
		`{"error":null,"method":"elicitation/create","result":{"action":"decline"}}`,
	}
	if diff := cmp.Diff(wantAnswers, answers); diff != "" {
		t.Errorf("client answers (-want +got):\n%s", diff)
	}
}

// TestRunSurfaceFailures: an op answered the wrong way fails its step
// with what the agent said.
func TestRunSurfaceFailures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		script  fakeagent.Script
		steps   []map[string]any
		wantErr string
	}{
		{"request answered with an error", fakeagent.Script{},
			[]map[string]any{op("initialize"), op("request", "method", "_x/renamed")},
			`input.json:1: step 2 (request): _x/renamed answered error -32601 "Method not found", want a result`},
		{"requestExpectError answered", fakeagent.Script{Methods: map[string][]fakeagent.Action{"_x/ok": nil}},
			[]map[string]any{op("initialize"), op("requestExpectError", "method", "_x/ok")},
			`step 2 (requestExpectError): _x/ok answered {}, want a JSON-RPC error`},
		{"setMode refused", fakeagent.Script{},
			[]map[string]any{op("initialize"), op("newSession"), op("setMode", "modeId", "nope")},
			`step 3 (setMode): session/set_mode: {"code":-32601,"message":"Method not found"}`},
		{"loadSession before any session", fakeagent.Script{},
			[]map[string]any{op("initialize"), op("loadSession")},
			`step 2 (loadSession): no session yet (run newSession first)`},
		{"session placeholder without a session", fakeagent.Script{},
			[]map[string]any{op("initialize"), op("request", "method", "_x", "params", map[string]any{"s": "{{session:2}}"})},
			`step 2 (request): params: {{session:2}}: the run has 0 session(s)`},
		{"raw request never answered", fakeagent.Script{Methods: map[string][]fakeagent.Action{"_x/slow": {{NoReply: true}}}},
			[]map[string]any{op("initialize"), op("request", "method", "_x/slow", "timeoutMs", 200)},
			`step 2 (request): timed out after 200ms waiting for the _x/slow response (id acpsnap-1)`},
		{"first incarnation reports a replay error", fakeagent.Script{AtEOF: []fakeagent.Action{{Report: &agentenv.Report{Errors: []string{"script exhausted"}}}}},
			[]map[string]any{op("initialize"), op("restartAgent")},
			"step 2 (restartAgent): incarnation 1 of the agent: replay: the agent's consumption report says:\n\treplay error: script exhausted"},
		{"first incarnation ignores EOF", fakeagent.Script{IgnoreEOF: true},
			[]map[string]any{op("initialize"), op("restartAgent")},
			`step 2 (restartAgent): incarnation 1 of the agent: agent did not exit within 300ms of stdin closing (sent SIGTERM)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := scenario{script: tt.script, input: input(t, tt.steps, nil)}
			_, err := run(t, sc.write(t), nil)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v\nwant it to contain %q", err, tt.wantErr)
			}
		})
	}
}
