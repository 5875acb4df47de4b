package conformance

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// run builds a run's lines from a script: "> " lines are the client's,
// "< " lines the agent's, "restart" starts the next incarnation.
func run(script ...string) []Line {
	var out []Line
	n, start := 0, 0
	for _, s := range script {
		switch {
		case s == "restart":
			start++
		case strings.HasPrefix(s, "> "):
			out = append(out, Line{Start: start, Raw: []byte(s[2:])})
		case strings.HasPrefix(s, "< "):
			n++
			out = append(out, Line{Agent: true, N: n, Start: start, Raw: []byte(s[2:])})
		default:
			panic("script line: " + s)
		}
	}
	return out
}

// got renders violations as "rule@line: msg".
func got(vs []Violation) []string {
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprintf("%s@%d: %s", v.Rule.ID, v.Line, v.Msg))
	}
	return out
}

const (
	initReq   = `> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true}}}`
	initResp  = `< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{},"authMethods":[]}}`
	newReq    = `> {"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`
	newResp   = `< {"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}`
	promptReq = `> {"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"hi"}]}}`
	cancel    = `> {"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s1"}}`
	endTurn   = `< {"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`
	cancelled = `< {"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}`
	chunk     = `< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`
	toolCall  = `< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"Read","locations":[{"path":"/w/a"}]}}}`
	toolDone  = `< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","status":"completed"}}}`
)

// handshake is a conforming start: initialize and one session.
var handshake = []string{initReq, initResp, newReq, newResp}

func TestCheck(t *testing.T) {
	type tc struct {
		name   string
		script []string
		want   []string
	}
	with := func(more ...string) []string { return append(append([]string{}, handshake...), more...) }
	cases := []tc{
		{"a conforming turn", with(promptReq, chunk, toolCall, toolDone, endTurn), nil},
		{"a cancel answered cancelled", with(promptReq, chunk, cancel, toolCall, cancelled), nil},
		{"a cancel answered end_turn", with(promptReq, chunk, cancel, endTurn),
			[]string{`cancelled-stop-reason@4: the client cancelled session/prompt (id 2), and the agent answered stopReason "end_turn"`}},
		{"a cancel answered with an error", with(promptReq, cancel, `< {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"aborted"}}`),
			[]string{`cancelled-stop-reason@3: the client cancelled session/prompt (id 2), and the agent answered an error, not stopReason "cancelled"`}},
		{"a cancel after the answer", with(promptReq, endTurn, cancel), nil},
		{"a close cancels the turn", with(promptReq, `> {"jsonrpc":"2.0","id":3,"method":"session/close","params":{"sessionId":"s1"}}`, endTurn, `< {"jsonrpc":"2.0","id":3,"result":{}}`),
			[]string{`cancelled-stop-reason@3: the client cancelled session/prompt (id 2), and the agent answered stopReason "end_turn"`}},
		{"an update after the cancelled answer", with(promptReq, cancel, cancelled, chunk),
			[]string{`update-after-cancelled@4: a agent_message_chunk after the agent answered the cancelled session/prompt (id 2) (line 3)`}},
		{"an update after the next prompt", with(promptReq, cancel, cancelled, `> {"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","prompt":[]}}`, chunk, `< {"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`), nil},
		{"an unannounced tool call update", with(promptReq, toolDone, endTurn),
			[]string{`announced-tool-call@3: tool_call_update of tool call "t1", which no tool_call (nor session/request_permission) of session "s1" announced before`}},
		{"a tool call announced by its permission request", with(promptReq,
			`< {"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1","title":"Edit"},"options":[{"optionId":"a","name":"A","kind":"allow_once"}]}}`,
			`> {"jsonrpc":"2.0","id":"p","result":{"outcome":{"outcome":"selected","optionId":"a"}}}`, toolDone, endTurn), nil},
		{"an update of an unknown session", with(`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s9","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`),
			[]string{`known-session@3: session/update names session "s9", which the agent never created and the client never loaded or resumed`}},
		{"an update before session/new answers", []string{initReq, initResp, newReq, chunk, newResp},
			[]string{`known-session@2: session/update names session "s1", which the agent never created and the client never loaded or resumed`}},
		{"a loaded session's replay", with(`> {"jsonrpc":"2.0","id":5,"method":"session/load","params":{"sessionId":"old","cwd":"/w","mcpServers":[]}}`,
			`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"old","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"x"}}}}`,
			`< {"jsonrpc":"2.0","id":5,"result":{}}`), nil},
		{"a replay after the load's answer", with(`> {"jsonrpc":"2.0","id":5,"method":"session/load","params":{"sessionId":"old","cwd":"/w","mcpServers":[]}}`,
			`< {"jsonrpc":"2.0","id":5,"result":{}}`,
			`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"old","update":{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"x"}}}}`),
			[]string{`load-replay@4: a user_message_chunk after the agent answered session/load (id 5) (line 3): the replay comes before the answer`}},
		{"a resume that replays", with(`> {"jsonrpc":"2.0","id":5,"method":"session/resume","params":{"sessionId":"old","cwd":"/w"}}`,
			`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"old","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`,
			`< {"jsonrpc":"2.0","id":5,"result":{}}`),
			[]string{`resume-no-replay@3: a agent_message_chunk before the agent answered session/resume (id 5): a replay of the history`}},
		{"a second session with the first's id", with(`> {"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`, `< {"jsonrpc":"2.0","id":3,"result":{"sessionId":"s1"}}`),
			[]string{`unique-session@3: session/new answered session id "s1", which this run had already (line 2)`}},
		{"an answer twice", with(promptReq, endTurn, endTurn),
			[]string{`answered-once@4: a second answer to the client's session/prompt (id 2), answered on line 3 already`}},
		{"an answer to no request", with(`< {"jsonrpc":"2.0","id":77,"result":{}}`),
			[]string{`answered-once@3: an answer to id 77, which the client never sent to this agent process`}},
		{"a request never answered", with(promptReq),
			[]string{`answered-once@0: the client's session/prompt (id 2) was never answered`}},
		{"ids pair within an incarnation", append(with(promptReq, endTurn, "restart", initReq), initResp, newReq, newResp),
			[]string{`unique-session@5: session/new answered session id "s1", which this run had already (line 2)`}},
		{"an answer to the last incarnation's request", append(with(promptReq, "restart"), endTurn),
			[]string{`answered-once@0: the client's session/prompt (id 2) was never answered`, `answered-once@3: an answer to id 2, which the client never sent to this agent process`}},
		{"not JSON-RPC", with(`< {"jsonrpc":"1.0","id":9,"result":{}}`, `< {"jsonrpc":"2.0","id":9,"result":{},"error":{"code":1,"message":"x"}}`, `< {"jsonrpc":"2.0"}`),
			[]string{`jsonrpc@3: "jsonrpc" is not "2.0"`, `jsonrpc@4: a response with both "result" and "error"`, `jsonrpc@5: neither a request ("method"), nor a response ("result" or "error")`}},
		{"a bad stop reason", with(promptReq, `< {"jsonrpc":"2.0","id":2,"result":{"stopReason":"done"}}`),
			[]string{`schema@3: result of session/prompt: $.stopReason: "done" is not one of "end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled" (the schema: Reasons why an agent stops processing a prompt turn.)`}},
		{"a missing session id", with(promptReq, `< {"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}}}`, endTurn),
			[]string{`schema@3: params of session/update: $: "sessionId" is required (the schema: The ID of the session this update pertains to.)`}},
		{"an unknown update kind", with(promptReq, `< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_mesage_chunk","content":{"type":"text","text":"x"}}}}`, endTurn),
			[]string{`schema@3: params of session/update: $.update.sessionUpdate: "agent_mesage_chunk" is not one of "user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan", "available_commands_update", "current_mode_update", "config_option_update", "session_info_update", "usage_update" (the schema: Different types of updates that can be sent during session processing.)`}},
		{"a wrong type deep down", with(promptReq, `< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":7}}}}`, endTurn),
			[]string{`schema@3: params of session/update: $.update.content.text: the integer 7, want string (the schema: Text content. May be plain text or formatted with Markdown.)`}},
		{"a method the client does not serve", with(`< {"jsonrpc":"2.0","id":"a","method":"session/prompt","params":{}}`, `> {"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"no"}}`),
			[]string{`schema@3: "session/prompt" is no method a client serves (an extension method's name starts with "_")`}},
		{"an extension method", with(`< {"jsonrpc":"2.0","method":"_x/y","params":{"any":1}}`), nil},
		{"a custom field", with(promptReq, `< {"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn","tokens":3}}`),
			[]string{`custom-field@3: result of session/prompt: $.tokens: "tokens" is not a member of PromptResponse (the schema: Response from processing a user prompt.)`}},
		{"a member the newest schema adds", []string{initReq, `< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentCapabilities":{"sessionCapabilities":{"delete":{}}},"authMethods":[]}}`}, nil},
		{"a member only the SDK's schema has", []string{initReq, initResp, newReq, `< {"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1","models":{"currentModelId":"m","availableModels":[{"modelId":"m","name":"M"}]}}}`}, nil},
		{"_meta is open", with(promptReq, `< {"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn","_meta":{"tokens":3}}}`), nil},
		{"fs without the capability", []string{`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}`, initResp, newReq, newResp, promptReq,
			`< {"jsonrpc":"2.0","id":"r","method":"fs/read_text_file","params":{"sessionId":"s1","path":"/w/a"}}`,
			`> {"jsonrpc":"2.0","id":"r","result":{"content":""}}`,
			`< {"jsonrpc":"2.0","id":"t","method":"terminal/create","params":{"sessionId":"s1","command":"ls"}}`,
			`> {"jsonrpc":"2.0","id":"t","result":{"terminalId":"x"}}`, endTurn},
			[]string{`fs-capability@3: fs/read_text_file, but the client's initialize did not set clientCapabilities.fs.readTextFile`,
				`terminal-capability@4: terminal/create, but the client's initialize did not set clientCapabilities.terminal`}},
		{"a relative path", with(promptReq, `< {"jsonrpc":"2.0","id":"r","method":"fs/write_text_file","params":{"sessionId":"s1","path":"a.txt","content":""}}`,
			`> {"jsonrpc":"2.0","id":"r","result":{}}`,
			`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t2","title":"Read","locations":[{"path":"src/a.go"}]}}}`, endTurn),
			[]string{`absolute-path@3: fs/write_text_file path "a.txt" is not absolute`, `absolute-path@4: tool_call location "src/a.go" is not absolute`}},
		{"terminals", with(promptReq,
			`< {"jsonrpc":"2.0","id":"t","method":"terminal/create","params":{"sessionId":"s1","command":"ls","cwd":"/w"}}`,
			`> {"jsonrpc":"2.0","id":"t","result":{"terminalId":"term-1"}}`,
			`< {"jsonrpc":"2.0","id":"o","method":"terminal/output","params":{"sessionId":"s1","terminalId":"term-2"}}`,
			`> {"jsonrpc":"2.0","id":"o","result":{"output":"","truncated":false}}`,
			`< {"jsonrpc":"2.0","id":"r","method":"terminal/release","params":{"sessionId":"s1","terminalId":"term-1"}}`,
			`> {"jsonrpc":"2.0","id":"r","result":{}}`,
			`< {"jsonrpc":"2.0","id":"k","method":"terminal/kill","params":{"sessionId":"s1","terminalId":"term-1"}}`,
			`> {"jsonrpc":"2.0","id":"k","result":{}}`, endTurn),
			[]string{`known-terminal@4: terminal/output of terminal "term-2", which no terminal/create returned`,
				`known-terminal@6: terminal/kill of terminal "term-1", released on line 5`}},
		{"a terminal shown that was never created", with(promptReq, toolCall,
			`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call_update","toolCallId":"t1","content":[{"type":"terminal","terminalId":"toolu_01"}]}}}`, endTurn),
			[]string{`known-terminal@4: tool call content shows terminal "toolu_01", which no terminal/create returned`}},
		{"a permission request without options", with(promptReq, toolCall,
			`< {"jsonrpc":"2.0","id":"p","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1"},"options":[]}}`,
			`> {"jsonrpc":"2.0","id":"p","result":{"outcome":{"outcome":"cancelled"}}}`,
			`< {"jsonrpc":"2.0","id":"q","method":"session/request_permission","params":{"sessionId":"s1","toolCall":{"toolCallId":"t1"},"options":[{"optionId":"a","name":"A","kind":"allow_once"},{"optionId":"a","name":"B","kind":"reject_once"}]}}`,
			`> {"jsonrpc":"2.0","id":"q","result":{"outcome":{"outcome":"cancelled"}}}`, endTurn),
			[]string{`permission-options@4: session/request_permission offers no option to choose`, `permission-options@5: session/request_permission offers option "a" twice`}},
		{"modes", []string{initReq, initResp, newReq,
			`< {"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1","modes":{"currentModeId":"x","availableModes":[{"id":"a","name":"A"},{"id":"a","name":"A2"}]}}}`,
			`< {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"current_mode_update","currentModeId":"b"}}}`},
			[]string{`mode-state@2: session/new lists mode "a" twice in availableModes`, `mode-state@2: session/new answered currentModeId "x", which is not one of availableModes (a, a)`,
				`mode-state@3: current_mode_update to "b", which is not one of the session's availableModes (a, a)`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if diff := cmp.Diff(c.want, got(Check(run(c.script...)))); diff != "" {
				t.Errorf("Check (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRules keeps the table sound: unique ids, each with its words and
// where they are.
func TestRules(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules {
		if seen[r.ID] || r.Spec == "" || !strings.HasPrefix(r.URL, "https://") || r.check == nil {
			t.Errorf("rule %q: a repeated id, or no spec words, or no URL", r.ID)
		}
		seen[r.ID] = true
		if Lookup(r.ID) != r {
			t.Errorf("Lookup(%q) is not the rule", r.ID)
		}
	}
	if Lookup("nope") != nil {
		t.Error("Lookup of an unknown id found a rule")
	}
}

// TestSchemaIsTheSDKs keeps schema.json the one the SDK of go.mod ships.
func TestSchemaIsTheSDKs(t *testing.T) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/coder/acp-go-sdk").Output()
	dir := strings.TrimSpace(string(out))
	if err != nil || dir == "" {
		t.Skipf("the SDK's module is not downloaded (go mod download): %v", err)
	}
	sdk, err := os.ReadFile(filepath.Join(dir, "schema", "schema.unstable.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(sdk, sdkSchema) {
		t.Errorf("schema.json differs from %s: copy it again", filepath.Join(dir, "schema", "schema.unstable.json"))
	}
}

// TestCorpus checks every line of the bundled corpus's stdout fixtures
// (normalized, so ids are tokens) against the schema of its message, as
// an agent's answers to a client whose requests are not recorded: the
// reference agent conforms.
func TestCorpus(t *testing.T) {
	files, _ := filepath.Glob("../../snapshots/*/stdout.expected.jsonl")
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var lines []Line
		for i, l := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
			lines = append(lines, Line{Agent: true, N: i + 1, Raw: l})
		}
		for _, v := range Check(lines) {
			if v.Rule.ID == "schema" || v.Rule.ID == "custom-field" || v.Rule.ID == "jsonrpc" || v.Rule.ID == "announced-tool-call" {
				t.Errorf("%s:%d: %s: %s", f, v.Line, v.Rule.ID, v.Msg)
			}
		}
	}
}

func FuzzCheck(f *testing.F) {
	f.Add(strings.Join(append(append([]string{}, handshake...), promptReq, chunk, cancel, toolDone, endTurn), "\n"))
	f.Add(strings.Join(append(append([]string{}, handshake...), `< {"jsonrpc":"2.0","id":2,"result":{"stopReason":["x"]}}`), "\n"))
	f.Add("> {}\n< {\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":1,\"update\":[]}}\nrestart\n< null")
	f.Fuzz(func(t *testing.T, s string) {
		var script []string
		for _, l := range strings.Split(s, "\n") {
			if l == "restart" || strings.HasPrefix(l, "> ") || strings.HasPrefix(l, "< ") {
				script = append(script, l)
			}
		}
		lines := run(script...)
		first := Check(lines)
		if diff := cmp.Diff(got(first), got(Check(lines))); diff != "" {
			t.Fatalf("Check is not deterministic (-first +second):\n%s", diff)
		}
		agent := 0
		for _, l := range lines {
			if l.Agent {
				agent++
			}
		}
		for _, v := range first {
			if v.Line < 0 || v.Line > agent || v.Rule == nil || v.Msg == "" {
				t.Fatalf("violation out of its run: %+v", v)
			}
		}
	})
}

// TestDocumented keeps docs/format.md's table of rules the table's: each
// rule has its row.
func TestDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/format.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range IDs() {
		if !strings.Contains(string(b), "| `"+id+"` |") {
			t.Errorf("docs/format.md (Conformance) has no row for rule %s", id)
		}
	}
}

func BenchmarkCheck(b *testing.B) {
	script := append([]string{}, handshake...)
	script = append(script, promptReq)
	for range 5000 {
		script = append(script, chunk)
	}
	script = append(script, toolCall, toolDone, endTurn)
	lines := run(script...)
	b.ResetTimer()
	for range b.N {
		if vs := Check(lines); len(vs) > 0 {
			b.Fatal(vs)
		}
	}
}
