package httplog

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/sessionlog"

	"github.com/acpsnap/acpsnap/internal/wire/dialect"
)

// conversation is a realistic three-call exchange per dialect: a prompt,
// a tool call and its result, a second user turn.
type conversation struct {
	dialect string
	bodies  []string // the three request bodies
	events  []SSEEvent
}

var conversations = []conversation{
	{
		dialect: "openai-chat",
		bodies: []string{
			`{"model":"deepseek-chat","messages":[{"role":"system","content":"You are a coding agent."},{"role":"user","content":"list the files"}],"tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object"}}}],"stream":true}`,
			`{"model":"deepseek-chat","messages":[{"role":"system","content":"You are a coding agent."},{"role":"user","content":"list the files"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"ls\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"a.go\nb.go"}],"tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object"}}}],"stream":true}`,
			`{"model":"deepseek-chat","messages":[{"role":"system","content":"You are a coding agent."},{"role":"user","content":"list the files"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"{\"cmd\":\"ls\"}"}}]},{"role":"tool","tool_call_id":"c1","content":"a.go\nb.go"},{"role":"assistant","content":"Two files."},{"role":"user","content":"thanks"}],"tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object"}}}],"stream":true,"temperature":0}`,
		},
		events: []SSEEvent{
			{Data: []byte(`{"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}`)},
			{Data: []byte(`[DONE]`)},
		},
	},
	{
		dialect: "openai-responses",
		bodies: []string{
			`{"model":"gpt-5.4","instructions":"You are Codex.","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]}],"tools":[{"type":"function","name":"shell","parameters":{"type":"object"}}],"stream":true,"prompt_cache_key":"{{uuid:1}}"}`,
			`{"model":"gpt-5.4","instructions":"You are Codex.","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]},{"type":"function_call","call_id":"c1","name":"shell","arguments":"{\"command\":[\"ls\"]}"},{"type":"function_call_output","call_id":"c1","output":"a.go"}],"tools":[{"type":"function","name":"shell","parameters":{"type":"object"}}],"stream":true,"prompt_cache_key":"{{uuid:1}}"}`,
			`{"model":"gpt-5.4","instructions":"You are Codex.","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]},{"type":"function_call","call_id":"c1","name":"shell","arguments":"{\"command\":[\"ls\"]}"},{"type":"function_call_output","call_id":"c1","output":"a.go"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"One file."}]},{"type":"message","role":"user","content":[{"type":"input_text","text":"thanks"}]}],"tools":[{"type":"function","name":"shell","parameters":{"type":"object"}}],"stream":true}`,
		},
		events: []SSEEvent{
			{Event: "response.created", Data: []byte(`{"type":"response.created","response":{"id":"resp_1"}}`)},
			{Event: "response.output_text.delta", Data: []byte(`{"type":"response.output_text.delta","delta":"Hi"}`)},
			{Event: "response.completed", Data: []byte(`{"type":"response.completed","response":{"id":"resp_1","usage":{"input_tokens":3}}}`)},
		},
	},
	{
		dialect: "anthropic-messages",
		bodies: []string{
			`{"model":"claude-sonnet-4-5","max_tokens":32000,"system":"You are Claude Code.","messages":[{"role":"user","content":[{"type":"text","text":"list the files"}]}],"tools":[{"name":"Bash","input_schema":{"type":"object"}}],"stream":true}`,
			`{"model":"claude-sonnet-4-5","max_tokens":32000,"system":"You are Claude Code.","messages":[{"role":"user","content":[{"type":"text","text":"list the files"}]},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go"}]}],"tools":[{"name":"Bash","input_schema":{"type":"object"}}],"stream":true}`,
			`{"model":"claude-sonnet-4-5","max_tokens":32000,"system":"You are Claude Code.","messages":[{"role":"user","content":[{"type":"text","text":"list the files"}]},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"a.go"}]},{"role":"assistant","content":[{"type":"text","text":"One file."}]},{"role":"user","content":[{"type":"text","text":"thanks"}]}],"tools":[{"name":"Bash","input_schema":{"type":"object"}}],"stream":true}`,
		},
		events: []SSEEvent{
			{Event: "message_start", Data: []byte(`{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":3}}}`)},
			{Event: "content_block_delta", Data: []byte(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}`)},
			{Event: "message_stop", Data: []byte(`{"type":"message_stop"}`)},
		},
	},
	{
		dialect: "gemini-generate-content",
		bodies: []string{
			`{"contents":[{"role":"user","parts":[{"text":"list the files"}]}],"systemInstruction":{"role":"user","parts":[{"text":"You are Gemini CLI."}]},"tools":[{"functionDeclarations":[{"name":"run_shell_command","parametersJsonSchema":{"type":"object"}}]}],"generationConfig":{"temperature":1}}`,
			`{"contents":[{"role":"user","parts":[{"text":"list the files"}]},{"role":"model","parts":[{"functionCall":{"id":"run_shell_command_{{ms}}_0","name":"run_shell_command","args":{"command":"ls"}}}]},{"role":"user","parts":[{"functionResponse":{"id":"run_shell_command_{{ms}}_0","name":"run_shell_command","response":{"output":"a.go"}}}]}],"systemInstruction":{"role":"user","parts":[{"text":"You are Gemini CLI."}]},"tools":[{"functionDeclarations":[{"name":"run_shell_command","parametersJsonSchema":{"type":"object"}}]}],"generationConfig":{"temperature":1}}`,
			`{"contents":[{"role":"user","parts":[{"text":"list the files"}]},{"role":"model","parts":[{"functionCall":{"id":"run_shell_command_{{ms}}_0","name":"run_shell_command","args":{"command":"ls"}}}]},{"role":"user","parts":[{"functionResponse":{"id":"run_shell_command_{{ms}}_0","name":"run_shell_command","response":{"output":"a.go"}}}]},{"role":"model","parts":[{"text":"One file."}]},{"role":"user","parts":[{"text":"thanks"}]}],"systemInstruction":{"role":"user","parts":[{"text":"You are Gemini CLI."}]},"tools":[{"functionDeclarations":[{"name":"run_shell_command","parametersJsonSchema":{"type":"object"}}]}],"generationConfig":{"temperature":1}}`,
		},
		events: []SSEEvent{
			{Data: []byte(`{"candidates":[{"content":{"parts":[{"text":"Hi"}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"r1"}`)},
			{Data: []byte(`{"candidates":[{"content":{"parts":[{"text":"!"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2,"totalTokenCount":5},"modelVersion":"gemini-2.5-flash","responseId":"r1"}`)},
		},
	},
}

func (c conversation) exchanges() []Exchange {
	var xs []Exchange
	for _, b := range c.bodies {
		xs = append(xs, Exchange{
			Request:  Request{Method: "POST", Path: "/v1/x", Header: map[string]string{"content-type": "application/json"}, Body: []byte(b)},
			Response: Response{Status: 200, Stream: true, Header: map[string]string{"content-type": "text/event-stream"}, Events: c.events},
		})
	}
	return xs
}

func header(dialect string) ComposedHeader {
	return ComposedHeader{ID: "{{session:0}}", Cwd: "{{cwd}}", Dialect: dialect, Agent: sessionlog.AgentInfo{Name: "a", Version: "1"}}
}

func TestComposeRoundTripPerDialect(t *testing.T) {
	for _, c := range conversations {
		t.Run(c.dialect, func(t *testing.T) {
			dir := t.TempDir()
			pins := OpenPins(dir).Overlay()
			xs := c.exchanges()
			log, err := Compose(context.Background(), xs, header(c.dialect), pins)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(log), "\n"), "\n")
			var requests []string
			for _, l := range lines {
				if strings.Contains(l, `"type":"model/request"`) {
					requests = append(requests, l)
				}
			}
			if len(requests) != 3 {
				t.Fatalf("got %d model/request lines, want 3:\n%s", len(requests), log)
			}
			for i, want := range []string{`"{{pin:system:`, `"base":1,"append":[`, `"base":2,"append":[`} {
				if !strings.Contains(requests[i], want) {
					t.Errorf("call %d: line lacks %s:\n%s", i+1, want, requests[i])
				}
			}
			if !strings.Contains(requests[0], `"tools":"{{pin:tools:`) {
				t.Errorf("call 1: tools not pinned:\n%s", requests[0])
			}
			if strings.Contains(requests[1], "thanks") || strings.Contains(requests[1], `"list the files"`) {
				t.Errorf("call 2 repeats items of call 1:\n%s", requests[1])
			}
			if wrote, err := pins.Write(); err != nil || len(wrote) != 2 {
				t.Fatalf("wrote %q (%v), want the system and the tools pin", wrote, err)
			}
			h, got, err := Decompose(log, "session.jsonl", OpenPins(dir))
			if err != nil {
				t.Fatal(err)
			}
			want := header(c.dialect)
			want.Type, want.Version = "session", 1
			if diff := cmp.Diff(want, h); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(xs, got); diff != "" {
				t.Errorf("exchanges (-want +got):\n%s", diff)
			}
		})
	}
}

func TestComposeOneWordChangeIsOneLine(t *testing.T) {
	c := conversations[1]
	a, err := Compose(context.Background(), c.exchanges(), header(c.dialect), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.bodies = append([]string(nil), c.bodies...)
	for i := range c.bodies {
		c.bodies[i] = strings.Replace(c.bodies[i], "list the files", "list all files", 1)
	}
	b, err := Compose(context.Background(), c.exchanges(), header(c.dialect), nil)
	if err != nil {
		t.Fatal(err)
	}
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	var changed []int
	for i := range al {
		if al[i] != bl[i] {
			changed = append(changed, i+1)
		}
	}
	if diff := cmp.Diff([]int{2}, changed); diff != "" {
		t.Errorf("changed lines (-want +got):\n%s", diff)
	}
}

func TestComposeChildConversations(t *testing.T) {
	body := func(system string, items ...string) string {
		return fmt.Sprintf(`{"model":"m","instructions":%q,"input":[%s]}`, system, strings.Join(items, ","))
	}
	u := func(s string) string { return fmt.Sprintf(`{"role":"user","content":%q}`, s) }
	bodies := []string{
		body("main", u("do it")),
		body("child", u("subtask")),
		body("child", u("subtask"), u("tool result")),
		body("main", u("do it"), u("spawn result")),
		body("main", u("do it"), u("spawn result")),  // a retry
		body("other", u("do it"), u("spawn result")), // another thread with the same items
	}
	var xs []Exchange
	for _, b := range bodies {
		xs = append(xs, Exchange{Request: Request{Method: "POST", Path: "/responses", Body: []byte(b)}, Response: Response{Status: 200, Body: []byte(`{}`)}})
	}
	log, err := Compose(context.Background(), xs, header("openai-responses"), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"call":3,"method":"POST","path":"/responses","base":2,`, `"call":4,"method":"POST","path":"/responses","base":1,`, `"call":5,"method":"POST","path":"/responses","base":4,"append":[]}`, `"call":6,"method":"POST","path":"/responses","body":{`} {
		if !bytes.Contains(log, []byte(want)) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	_, got, err := Decompose(log, "s.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(xs, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestComposeEndsAndPayloadForms(t *testing.T) {
	xs := []Exchange{
		{Request: Request{Method: "GET", Path: "/models"}, Response: Response{Status: 429, Body: []byte("slow down\n"), End: ""}},
		{Request: Request{Method: "POST", Path: "/x", Body: []byte("{\n \"a\": 1}")}, Response: Response{Status: 200, Stream: true, Events: []SSEEvent{{Event: "e", ID: "7", Data: []byte("\xff")}}, End: EndDisconnect}},
		{Request: Request{Method: "POST", Path: "/x", Body: []byte(`{"a":"{{pin:x:system}}"}`)}, Response: Response{Status: 200, Stream: true, End: EndHang}},
	}
	log, err := Compose(context.Background(), xs, header("openai-chat"), &Pins{})
	if err != nil {
		t.Fatal(err)
	}
	_, got, err := Decompose(log, "s.jsonl", nil)
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	if diff := cmp.Diff(xs, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDecomposeErrors(t *testing.T) {
	c := conversations[0]
	log, err := Compose(context.Background(), c.exchanges(), header(c.dialect), OpenPins("corpus/pins").Overlay())
	if err != nil {
		t.Fatal(err)
	}
	hdr := `{"type":"session","version":1,"id":"s","createdAt":0,"cwd":"/","dialect":"openai-chat","agent":{"name":"a","version":"1"}}` + "\n"
	tests := []struct {
		name, log string
		pins      *Pins
		want      string
	}{
		{"missing pin", string(log), OpenPins("corpus/pins"), ".md: missing pin (the log refers to {{pin:system:"},
		{"old form", regexp.MustCompile(`\{\{pin:system:[0-9a-f]{12}\}\}`).ReplaceAllString(string(log), "{{pin:agent:system}}"), OpenPins("corpus/pins"),
			"{{pin:agent:system}} is a pin of the old form, one file the whole corpus shared: convert the corpus with: acpsnap pins migrate -dir corpus"},
		{"seq gap", hdr + `{"type":"model/request","seq":1,"time":0,"data":{"call":1,"method":"GET","path":"/"}}`, nil, "s.jsonl:2: $.seq: is 1, want 0"},
		{"status 0", hdr + `{"type":"model/request","seq":0,"time":0,"data":{"call":1,"method":"GET","path":"/"}}` + "\n" + `{"type":"model/status","seq":1,"time":0,"data":{"call":1,"status":0}}`, nil, "s.jsonl:3: $.data.status: is 0, want an HTTP status (100 to 599)"},
		{"status 1000", hdr + `{"type":"model/request","seq":0,"time":0,"data":{"call":1,"method":"GET","path":"/"}}` + "\n" + `{"type":"model/status","seq":1,"time":0,"data":{"call":1,"status":1000}}`, nil, "s.jsonl:3: $.data.status: is 1000, want an HTTP status (100 to 599)"},
		{"status first", hdr + `{"type":"model/status","seq":0,"time":0,"data":{"call":1,"status":200}}`, nil, "s.jsonl:2: $.data.call: is 1, want 0"},
		{"bad base", hdr + `{"type":"model/request","seq":0,"time":0,"data":{"call":1,"method":"GET","path":"/","base":1,"append":[]}}`, nil, "s.jsonl:2: $.data.base: is 1, want an earlier call"},
		{"unknown key", hdr + `{"type":"model/request","seq":0,"time":0,"data":{"call":1,"method":"GET","path":"/","bdy":{}}}`, nil, "s.jsonl:2: $.data.bdy: unknown key"},
		{"missing end", hdr + `{"type":"model/request","seq":0,"time":0,"data":{"call":1,"method":"GET","path":"/"}}` + "\n" + `{"type":"model/end","seq":1,"time":0,"data":{"call":1}}`, nil, "s.jsonl:3: $.data.end: missing"},
		{"event without stream", hdr + `{"type":"model/request","seq":0,"time":0,"data":{"call":1,"method":"GET","path":"/"}}` + "\n" + `{"type":"model/status","seq":1,"time":0,"data":{"call":1,"status":200}}` + "\n" + `{"type":"model/event","seq":2,"time":0,"data":{"call":1,"data":{}}}`, nil, "s.jsonl:4: $.data.call: model/event out of order"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Decompose([]byte(tc.log), "s.jsonl", tc.pins)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestPinFileStrict(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "tools-22d9ac5f42c9.json"), []byte(`[{"a":1,"a":2}]`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := OpenPins(dir).Value("{{pin:tools:22d9ac5f42c9}}")
	if err == nil || !strings.Contains(err.Error(), "tools-22d9ac5f42c9.json:1: $[0].a: duplicate key") {
		t.Errorf("err = %v", err)
	}
}

func FuzzComposeRoundTrip(f *testing.F) {
	for _, c := range conversations {
		f.Add(c.dialect, c.bodies[0], c.bodies[1], c.bodies[2], string(c.events[0].Data))
	}
	f.Add("openai-chat", `{"messages":[1]}`, `{"messages":[1,2],"x":1}`, `{"messages":[1,2,3]}`, "\n")
	f.Fuzz(func(t *testing.T, name, b1, b2, b3, ev string) {
		var xs []Exchange
		for i, b := range []string{b1, b2, b3} {
			xs = append(xs, Exchange{
				Request:  Request{Method: "POST", Path: "/p", Body: []byte(b)},
				Response: Response{Status: 200 + i, Stream: i != 1, Events: events(i != 1, ev), Body: body(i == 1, ev)},
			})
		}
		pins := &Pins{}
		log, err := Compose(context.Background(), xs, header(name), pins)
		if err != nil {
			t.Fatal(err)
		}
		_, got, err := Decompose(log, "f.jsonl", pins)
		if err != nil {
			t.Fatalf("%v\n%s", err, log)
		}
		if diff := cmp.Diff(xs, got); diff != "" {
			t.Errorf("(-want +got):\n%s\nlog:\n%s", diff, log)
		}
	})
}

func events(on bool, data string) []SSEEvent {
	if !on {
		return nil
	}
	return []SSEEvent{{Event: "e", Data: []byte(data)}}
}

func body(on bool, data string) []byte {
	if !on {
		return nil
	}
	return []byte(data)
}

// TestComposeRoundTripRandom builds random conversations (follow-ups that
// extend, change and drop members, children interleaved, odd strings,
// bodies that are not compact JSON) and checks that reading a composed log
// gives back exactly what was composed.
func TestComposeRoundTripRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	strs := []string{"a", "é", `q"uote`, "line\nbreak", "\u2028", "<&>", "{{pin:c:system}}", "{{cwd}}/x", "\\u00e9"}
	pick := func() string { return strs[rng.IntN(len(strs))] }
	followUps := 0
	for iter := range 150 {
		d := dialect.Table[iter%len(dialect.Table)]
		conv := d.Conversation
		type thread struct{ items []string }
		var threads []*thread
		var xs []Exchange
		for range 1 + rng.IntN(8) {
			if len(threads) == 0 || rng.IntN(4) == 0 {
				threads = append(threads, &thread{})
			}
			th := threads[rng.IntN(len(threads))]
			for range 1 + rng.IntN(3) {
				th.items = append(th.items, fmt.Sprintf(`{"role":"user","content":%s}`, quote(pick())))
			}
			ms := []member{{"model", quote("m")}}
			if rng.IntN(2) == 0 {
				ms = append(ms, member{"system", quote(pick())}, member{"instructions", quote(pick())})
			}
			ms = append(ms, member{conv, []byte("[" + strings.Join(th.items, ",") + "]")})
			if rng.IntN(3) > 0 {
				ms = append(ms, member{"tools", []byte(`[{"name":` + string(quote(pick())) + `}]`)})
			}
			if rng.IntN(3) == 0 {
				ms = append(ms, member{"temperature", []byte(fmt.Sprint(rng.IntN(3)))})
			}
			body := buildObject(ms)
			switch rng.IntN(12) {
			case 0:
				body = append([]byte(" "), body...)
			case 1:
				body = []byte("not json " + pick())
			}
			resp := Response{Status: 200, Body: []byte(`{}`)}
			if rng.IntN(2) == 0 {
				resp = Response{Status: 200, Stream: true, Header: map[string]string{"content-type": pick()}, End: []string{"", EndHang}[rng.IntN(2)]}
				for range rng.IntN(4) {
					data := []string{string(quote(pick())), pick(), "[DONE]", ""}[rng.IntN(4)]
					resp.Events = append(resp.Events, SSEEvent{Event: pick(), Data: []byte(data)})
				}
			}
			xs = append(xs, Exchange{Request: Request{Method: "POST", Path: "/p", Body: body}, Response: resp})
		}
		var pins *Pins
		if rng.IntN(2) == 0 {
			pins = &Pins{}
		}
		log, err := Compose(context.Background(), xs, header(d.Name), pins)
		if err != nil {
			t.Fatal(err)
		}
		followUps += bytes.Count(log, []byte(`"base":`))
		_, got, err := Decompose(log, "r.jsonl", pins)
		if err != nil {
			t.Fatalf("iteration %d: %v\n%s", iter, err, log)
		}
		if diff := cmp.Diff(xs, got); diff != "" {
			t.Fatalf("iteration %d (-want +got):\n%s\nlog:\n%s", iter, diff, log)
		}
	}
	if followUps < 50 {
		t.Errorf("only %d follow-ups in 150 logs: the generator does not exercise them", followUps)
	}
}

// seedComposed seeds f with the composed logs of the conversations.
func seedComposed(f *testing.F) {
	for _, c := range conversations {
		log, err := Compose(context.Background(), c.exchanges(), header(c.dialect), nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(log)
	}
}

// FuzzDecompose: any input is read or refused, never a panic, and what is
// read composes back to a log that reads the same.
func FuzzDecompose(f *testing.F) {
	seedComposed(f)
	f.Fuzz(func(t *testing.T, log []byte) {
		h, xs, err := Decompose(log, "f.jsonl", nil)
		if err != nil {
			return
		}
		again, err := Compose(context.Background(), xs, h, nil)
		if err != nil {
			return // e.g. a status line with both events and a body cannot be written back
		}
		_, xs2, err := Decompose(again, "g.jsonl", nil)
		if err != nil {
			t.Fatalf("a recomposed log does not read: %v\n%s", err, again)
		}
		if diff := cmp.Diff(xs, xs2); diff != "" {
			t.Errorf("(-first +second):\n%s", diff)
		}
	})
}
