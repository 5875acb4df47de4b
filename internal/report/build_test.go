package report

import (
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// lines joins JSONL lines.
func lines(ls ...string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }

const (
	initOK    = `{"id":1,"jsonrpc":"2.0","result":{}}`
	sessionOK = `{"id":2,"jsonrpc":"2.0","result":{"sessionId":"{{session:1}}"}}`
	upd       = `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{session:1}}","update":`
)

func steps(prompts ...string) *scenario.Input {
	in := &scenario.Input{Steps: []scenario.Step{{Op: scenario.OpInitialize}, {Op: scenario.OpNewSession}}}
	for _, p := range prompts {
		in.Steps = append(in.Steps, scenario.Step{Op: scenario.OpPrompt, Text: p})
	}
	return in
}

func TestBuild(t *testing.T) {
	type testCase struct {
		name   string
		in     *scenario.Input
		stdout []byte
		want   []Turn
	}
	for _, tc := range []testCase{
		{name: "chunks merge into one message, thoughts apart", in: steps("Hi"),
			stdout: lines(initOK, sessionOK,
				upd+`{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"a greeting"}}}}`,
				upd+`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello"}}}}`,
				upd+`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":" there"}}}}`,
				upd+`{"sessionUpdate":"usage_update","used":3}}}`,
				`{"id":3,"jsonrpc":"2.0","result":{"stopReason":"end_turn"}}`),
			want: []Turn{{Session: "{{session:1}}", Prompt: "Hi", Stop: "end_turn", Items: []Item{
				{Kind: Thought, Text: "a greeting"}, {Kind: Message, Text: "Hello there"}}}}},
		{name: "a tool call as its updates leave it, and the permission answered from the script",
			in: &scenario.Input{Steps: steps("Write it").Steps, PermissionAnswers: []scenario.PermissionAnswer{{Kind: "reject_once"}}},
			stdout: lines(initOK, sessionOK,
				upd+`{"sessionUpdate":"tool_call","toolCallId":"{{toolCall:1}}","kind":"edit","title":"Write a.txt","status":"pending","rawInput":{"path":"a.txt"}}}}`,
				`{"id":"{{agentRpc:1}}","jsonrpc":"2.0","method":"session/request_permission","params":{"sessionId":"{{session:1}}","options":[{"kind":"allow_once","name":"Allow","optionId":"a"},{"kind":"reject_once","name":"Reject","optionId":"r"}],"toolCall":{"toolCallId":"{{toolCall:1}}"}}}`,
				upd+`{"sessionUpdate":"tool_call_update","toolCallId":"{{toolCall:1}}","status":"failed","content":[{"type":"content","content":{"type":"text","text":"rejected"}}]}}}`,
				`{"id":3,"jsonrpc":"2.0","result":{"stopReason":"end_turn"}}`),
			want: []Turn{{Session: "{{session:1}}", Prompt: "Write it", Stop: "end_turn", Items: []Item{
				{Kind: ToolCall, Tool: &Tool{ID: "{{toolCall:1}}", Kind: "edit", Title: "Write a.txt", Status: "failed", Input: `{"path":"a.txt"}`, Output: "rejected"}},
				{Kind: Permission, Permission: &Asked{Title: "Write a.txt", Options: []string{"Allow", "Reject"}, Answer: "Reject"}}}}}},
		{name: "a call the agent puts under another goes under it",
			in: steps("Delegate"),
			stdout: lines(initOK, sessionOK,
				upd+`{"sessionUpdate":"tool_call","toolCallId":"t1","kind":"think","title":"Task"}}}`,
				upd+`{"sessionUpdate":"tool_call","toolCallId":"t2","kind":"execute","title":"ls","_meta":{"claudeCode":{"parentToolUseId":"t1"}}}}}`,
				`{"id":3,"jsonrpc":"2.0","result":{"stopReason":"end_turn"}}`),
			want: []Turn{{Session: "{{session:1}}", Prompt: "Delegate", Stop: "end_turn", Items: []Item{
				{Kind: ToolCall, Tool: &Tool{ID: "t1", Kind: "think", Title: "Task", Items: []Item{
					{Kind: ToolCall, Tool: &Tool{ID: "t2", Kind: "execute", Title: "ls"}}}}}}}}},
		{name: "plans, mode changes, a prompt's error, two turns",
			in: steps("Plan", "Again"),
			stdout: lines(initOK, sessionOK,
				upd+`{"sessionUpdate":"plan","entries":[{"content":"Tag","status":"pending","priority":"high"}]}}}`,
				upd+`{"sessionUpdate":"current_mode_update","currentModeId":"ask"}}}`,
				`{"id":3,"jsonrpc":"2.0","result":{"stopReason":"end_turn"}}`,
				`{"id":4,"jsonrpc":"2.0","error":{"code":-32603,"message":"Internal error","data":{"code":"STREAM"}}}`),
			want: []Turn{
				{Session: "{{session:1}}", Prompt: "Plan", Stop: "end_turn", Items: []Item{
					{Kind: Plan, Plan: []PlanEntry{{Content: "Tag", Status: "pending", Priority: "high"}}},
					{Kind: Mode, Text: "ask"}}},
				{Prompt: "Again", Error: `Internal error (code -32603): {"code":"STREAM"}`}}},
		{name: "a session op's answer is no prompt's; after a restart ids count from 1 again; a loaded history apart from the reply",
			in: &scenario.Input{Steps: []scenario.Step{{Op: scenario.OpInitialize}, {Op: scenario.OpNewSession}, {Op: scenario.OpSetMode},
				{Op: scenario.OpPrompt, Text: "One"}, {Op: scenario.OpRestartAgent}, {Op: scenario.OpInitialize}, {Op: scenario.OpLoadSession},
				{Op: scenario.OpPrompt, Text: "Two"}}},
			stdout: lines(initOK, sessionOK, `{"id":3,"jsonrpc":"2.0","result":{}}`,
				upd+`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"A"}}}}`,
				`{"id":4,"jsonrpc":"2.0","result":{"stopReason":"end_turn"}}`,
				initOK,
				upd+`{"sessionUpdate":"user_message_chunk","content":{"type":"text","text":"One"}}}}`,
				upd+`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"A"}}}}`,
				`{"id":2,"jsonrpc":"2.0","result":{}}`,
				upd+`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"B"}}}}`,
				`{"id":3,"jsonrpc":"2.0","result":{"stopReason":"end_turn"}}`),
			want: []Turn{
				{Session: "{{session:1}}", Prompt: "One", Stop: "end_turn", Items: []Item{{Kind: Message, Text: "A"}}},
				{Session: "{{session:1}}", Prompt: "Two", Stop: "end_turn", Items: []Item{
					{Kind: Replayed, Text: "One"}, {Kind: Message, Text: "A"}, {Kind: Message, Text: "B"}}}}},
		{name: "updates after the answer stay in the last turn", in: steps("Hi"),
			stdout: lines(initOK, sessionOK,
				`{"id":3,"jsonrpc":"2.0","result":{"stopReason":"end_turn"}}`,
				upd+`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"late"}}}}`),
			want: []Turn{{Session: "{{session:1}}", Prompt: "Hi", Stop: "end_turn", Items: []Item{{Kind: Message, Text: "late"}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Build(Source{Name: "x", Input: tc.in, Stdout: tc.stdout, Logs: [][]byte{[]byte(`{"type":"session","version":1,"id":"{{session:1}}"}` + "\n")}})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, got.Turns); d != "" {
				t.Errorf("turns (-want +got):\n%s", d)
			}
		})
	}
}

func TestBuildErrors(t *testing.T) {
	type testCase struct {
		name   string
		stdout []byte
		logs   [][]byte
		want   string
	}
	header := []byte(`{"type":"session","version":1,"id":"s"}` + "\n")
	for _, tc := range []testCase{
		{"stdout line not JSON", lines(initOK, "{oops"), [][]byte{header}, "transcript: stdout.expected.jsonl:2: "},
		{"log without header", lines(initOK), [][]byte{[]byte("\n")}, "session.jsonl"},
		{"composed log naming a missing pin", lines(initOK),
			[][]byte{[]byte(`{"agent":{"name":"a","version":"1"},"createdAt":0,"cwd":"{{cwd}}","dialect":"openai-responses","id":"s","type":"session","version":1}` + "\n" +
				`{"data":{"body":{"input":[],"instructions":"{{pin:system:0123456789ab}}","model":"m"},"call":1,"method":"POST","path":"/v1/responses"},"seq":0,"time":0,"type":"model/request"}` + "\n")},
			"pins/system-0123456789ab.md: missing pin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Build(Source{Input: steps(), Stdout: tc.stdout, Logs: tc.logs})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Build = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestNewSessionError(t *testing.T) {
	in := &scenario.Input{Steps: []scenario.Step{{Op: scenario.OpInitialize}, {Op: scenario.OpNewSessionExpectError}}}
	got, err := Build(Source{Input: in, Stdout: lines(initOK, `{"id":2,"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid params"}}`),
		Logs: [][]byte{[]byte(`{"type":"session","version":1,"id":"s"}` + "\n")}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"newSessionExpectError: Invalid params (code -32602)"}, got.Errors); d != "" {
		t.Errorf("errors (-want +got):\n%s", d)
	}
}

// chunks is stdout with n message chunks of text after a prompt.
func chunks(n int, text string) []byte {
	ls := []string{initOK, sessionOK}
	line := upd + `{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"` + text + `"}}}}`
	for range n {
		ls = append(ls, line)
	}
	return lines(append(ls, `{"id":3,"jsonrpc":"2.0","result":{"stopReason":"end_turn"}}`)...)
}

// TestBuildManyChunks: a message of many chunks is joined once, in time
// and memory linear in its length (each chunk was once added to the whole
// text so far: 128 MB of output took minutes); past MaxBuiltText the text
// is cut, with a note of the rest.
func TestBuildManyChunks(t *testing.T) {
	alloc := func(n int) uint64 {
		src := Source{Name: "x", Input: steps("Hi"), Stdout: chunks(n, "word ")}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		tr, err := Build(src)
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if items := tr.Turns[0].Items; len(items) != 1 || items[0].Text != strings.Repeat("word ", n) {
			t.Fatalf("%d chunks built %d items", n, len(items))
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(5000), alloc(20000)
	if ratio := float64(large) / float64(small); ratio > 6 {
		t.Errorf("4x the chunks allocated %.1fx the bytes (%d, then %d): not linear", ratio, small, large)
	}

	tr, err := Build(Source{Name: "x", Input: steps("Hi"), Stdout: chunks(40, strings.Repeat("x", 64<<10))})
	if err != nil {
		t.Fatal(err)
	}
	text := tr.Turns[0].Items[0].Text
	if want := "… 1.6 MB more not kept"; !strings.HasSuffix(text, want) || len(text) != MaxBuiltText+len(want) {
		t.Errorf("a 2.6 MB message kept as %d bytes ending %q", len(text), text[max(0, len(text)-40):])
	}
	again := coalesce(tr.Turns[0].Items)
	if again[0].Text != text {
		t.Errorf("coalesce of a built transcript changed it")
	}
}
