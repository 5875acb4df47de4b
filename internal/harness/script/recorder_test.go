package script

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

const cwd = "/w/proj"

// wire is one session as the relay saw it: "> " lines the client sent,
// "< " lines the agent sent, "calls N" the model calls made by then.
type wire []string

var handshake = wire{
	`> {"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true}},"clientInfo":{"name":"ed","version":"2"}}}`,
	`< {"jsonrpc":"2.0","id":0,"result":{"protocolVersion":1,"agentInfo":{"name":"ag","version":"1"}}}`,
	`> {"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w/proj","mcpServers":[]}}`,
	`< {"jsonrpc":"2.0","id":1,"result":{"sessionId":"s-1"}}`,
}

// play shows the lines to a new recorder and returns it and the answers
// Client gave instead of passing a line on.
func play(w wire) (*Recorder, []string) {
	calls := 0
	r := New(cwd, []string{"/private/w/proj"}, func() int { return calls })
	var answers []string
	for _, l := range w {
		switch {
		case strings.HasPrefix(l, "> "):
			if a := r.Client([]byte(l[2:])); a != nil {
				answers = append(answers, string(a))
			}
		case strings.HasPrefix(l, "< "):
			r.Agent([]byte(l[2:]))
		case strings.HasPrefix(l, "calls "):
			calls = int(l[6] - '0')
		case l == "disconnect":
			r.Disconnected()
		}
	}
	return r, answers
}

// load decodes input.json as acpsnap reads it (strictly).
func load(t *testing.T, b []byte) *scenario.Input {
	t.Helper()
	p := filepath.Join(t.TempDir(), scenario.InputFile)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	in, err := scenario.LoadInput(p)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	return in
}

// steps are a script's steps, one line each, as the test cases spell them.
func steps(in *scenario.Input) []string {
	var out []string
	for _, s := range in.Steps {
		b, _ := json.Marshal(s)
		out = append(out, string(b))
	}
	return out
}

func TestScript(t *testing.T) {
	type testCase struct {
		name    string
		wire    wire
		calls   []httplog.Exchange
		want    []string // steps
		perms   []scenario.PermissionAnswer
		answers []scenario.ClientAnswer
		patch   string // replay.override.json, compact; "": none
	}
	prompt := func(id, text string) string {
		return `> {"jsonrpc":"2.0","id":` + id + `,"method":"session/prompt","params":{"sessionId":"s-1","prompt":[{"type":"text","text":"` + text + `"}]}}`
	}
	done := func(id string) string {
		return `< {"jsonrpc":"2.0","id":` + id + `,"result":{"stopReason":"end_turn"}}`
	}
	cases := []testCase{
		{name: "a prompt", wire: append(handshake[:4:4], prompt("2", "Say hello."), done("2")),
			want: []string{`{"op":"initialize"}`, `{"op":"newSession"}`, `{"op":"prompt","text":"Say hello."}`}},
		{name: "content blocks with the folder", wire: append(handshake[:4:4],
			`> {"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s-1","prompt":[{"type":"text","text":"see"},{"type":"resource_link","name":"a","uri":"file:///private/w/proj/a.txt"},{"type":"text","text":"not /w/proj2/b"}]}}`, done("2")),
			want: []string{`{"op":"initialize"}`, `{"op":"newSession"}`,
				`{"op":"promptContent","content":[{"text":"see","type":"text"},{"name":"a","type":"resource_link","uri":"file://{{cwd}}/a.txt"},{"text":"not /w/proj2/b","type":"text"}]}`}},
		{name: "a permission answered and a refused prompt", wire: append(handshake[:4:4], prompt("2", "Write it."),
			`< {"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"sessionId":"s-1","options":[{"optionId":"o1","kind":"allow_once","name":"Yes"},{"optionId":"o2","kind":"allow_always","name":"Always"}],"toolCall":{"toolCallId":"t"}}}`,
			`> {"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"selected","optionId":"o2"}}}`,
			`< {"jsonrpc":"2.0","id":8,"method":"fs/read_text_file","params":{"sessionId":"s-1","path":"/w/proj/a"}}`,
			`> {"jsonrpc":"2.0","id":8,"result":{"content":"a"}}`,
			done("2"), prompt("3", "Again."), `< {"jsonrpc":"2.0","id":3,"error":{"code":-32603,"message":"no"}}`),
			want:  []string{`{"op":"initialize"}`, `{"op":"newSession"}`, `{"op":"prompt","text":"Write it."}`, `{"op":"promptExpectError","text":"Again."}`},
			perms: []scenario.PermissionAnswer{{Kind: "allow_always"}}},
		{name: "modes, options, a model, a load", wire: append(handshake[:4:4],
			`> {"jsonrpc":"2.0","id":2,"method":"session/set_mode","params":{"sessionId":"s-1","modeId":"ask"}}`, `< {"jsonrpc":"2.0","id":2,"result":{}}`,
			`> {"jsonrpc":"2.0","id":3,"method":"session/set_config_option","params":{"sessionId":"s-1","configId":"fast","type":"boolean","value":true}}`, `< {"jsonrpc":"2.0","id":3,"result":{"configOptions":[]}}`,
			`> {"jsonrpc":"2.0","id":4,"method":"session/set_config_option","params":{"sessionId":"s-1","configId":"model","value":"big"}}`, `< {"jsonrpc":"2.0","id":4,"result":{"configOptions":[]}}`,
			`> {"jsonrpc":"2.0","id":5,"method":"session/set_model","params":{"sessionId":"s-1","modelId":"m"}}`, `< {"jsonrpc":"2.0","id":5,"result":{}}`,
			`> {"jsonrpc":"2.0","id":6,"method":"session/load","params":{"sessionId":"s-1","cwd":"/w/proj","mcpServers":[]}}`, `< {"jsonrpc":"2.0","id":6,"result":{}}`,
			`> {"jsonrpc":"2.0","id":7,"method":"_ext/ping","params":{"sessionId":"s-1","at":"/w/proj"}}`, `< {"jsonrpc":"2.0","id":7,"result":{}}`,
			`> {"jsonrpc":"2.0","method":"_ext/note","params":{"x":1}}`),
			want: []string{`{"op":"initialize"}`, `{"op":"newSession"}`, `{"op":"setMode","modeId":"ask"}`,
				`{"op":"setConfigOption","configId":"fast","value":true}`, `{"op":"setConfigOption","configId":"model","value":"big"}`,
				`{"op":"setModel","modelId":"m"}`, `{"op":"loadSession","session":1}`,
				`{"op":"request","params":{"at":"{{cwd}}","sessionId":"{{session:1}}"},"method":"_ext/ping"}`,
				`{"op":"notify","params":{"x":1},"method":"_ext/note"}`}},
		{name: "the client's answers to other requests", wire: append(handshake[:4:4], prompt("2", "Ask me."),
			`< {"jsonrpc":"2.0","id":9,"method":"elicitation/create","params":{"message":"name?"}}`,
			`> {"jsonrpc":"2.0","id":9,"error":{"code":-32000,"message":"declined"}}`,
			`< {"jsonrpc":"2.0","id":10,"method":"_zed/ping","params":{}}`,
			`> {"jsonrpc":"2.0","id":10,"result":{"ok":true}}`, done("2")),
			want: []string{`{"op":"initialize"}`, `{"op":"newSession"}`, `{"op":"prompt","text":"Ask me."}`},
			answers: []scenario.ClientAnswer{{Method: "elicitation/create", Error: &scenario.RPCError{Code: -32000, Message: "declined"}},
				{Method: "_zed/ping", Result: json.RawMessage(`{"ok":true}`)}}},
		{name: "a cancel while the model streams", wire: append(handshake[:4:4], prompt("2", "Hello."), done("2"), "calls 1",
			prompt("3", "Tell a story."), "calls 2", `> {"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s-1"}}`,
			`< {"jsonrpc":"2.0","id":3,"result":{"stopReason":"cancelled"}}`),
			calls: []httplog.Exchange{{}, {Response: httplog.Response{Stream: true, End: httplog.EndCancel, Events: make([]httplog.SSEEvent, 3)}}},
			want:  []string{`{"op":"initialize"}`, `{"op":"newSession"}`, `{"op":"prompt","text":"Hello."}`, `{"op":"promptAndCancel","text":"Tell a story."}`},
			patch: `{"patches":[{"call":2,"hangAfter":3}]}`},
		{name: "a second session and a prompt of the first", wire: append(handshake[:4:4],
			`> {"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w/proj","mcpServers":[]}}`,
			`< {"jsonrpc":"2.0","id":2,"result":{"sessionId":"s-2"}}`, prompt("3", "First."), done("3")),
			want: []string{`{"op":"initialize"}`, `{"op":"newSession"}`, `{"op":"newSession"}`,
				`{"op":"request","params":{"prompt":[{"text":"First.","type":"text"}],"sessionId":"{{session:1}}"},"method":"session/prompt"}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := play(c.wire)
			s, err := r.Script(c.calls)
			if err != nil {
				t.Fatal(err)
			}
			in := load(t, s.Input)
			if d := cmp.Diff(c.want, steps(in)); d != "" {
				t.Errorf("steps (-want +got):\n%s", d)
			}
			if d := cmp.Diff(c.perms, in.PermissionAnswers); d != "" {
				t.Errorf("permissionAnswers (-want +got):\n%s", d)
			}
			for i := range in.ClientAnswers {
				if r := in.ClientAnswers[i].Result; r != nil {
					var b bytes.Buffer
					json.Compact(&b, r)
					in.ClientAnswers[i].Result = b.Bytes()
				}
			}
			if d := cmp.Diff(c.answers, in.ClientAnswers); d != "" {
				t.Errorf("clientAnswers (-want +got):\n%s", d)
			}
			var patch []byte
			if s.Override != nil {
				var v any
				json.Unmarshal(s.Override, &v)
				patch, _ = json.Marshal(v)
			}
			if d := cmp.Diff(c.patch, string(patch)); d != "" {
				t.Errorf("replay.override.json (-want +got):\n%s", d)
			}
		})
	}
}

// TestScriptRefusals: what a scenario cannot say is an error that says
// why, and nothing is written.
func TestScriptRefusals(t *testing.T) {
	type testCase struct {
		name   string
		wire   wire
		native bool
		calls  []httplog.Exchange
		want   string
	}
	cancelled := append(handshake[:4:4], `> {"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s-1","prompt":[{"type":"text","text":"Go."}]}}`,
		"calls 1", `> {"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s-1"}}`, `< {"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}`)
	cases := []testCase{
		{name: "gone mid-prompt", wire: append(handshake[:4:4], `> {"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s-1","prompt":[]}}`,
			"disconnect", `< {"jsonrpc":"2.0","id":2,"result":{"stopReason":"cancelled"}}`),
			want: "the client disconnected while its session/prompt was still unanswered"},
		{name: "a cancel after the stream", wire: cancelled, calls: []httplog.Exchange{{Response: httplog.Response{Stream: true}}},
			want: `the client cancelled the prompt "Go." while no one model call was streaming`},
		{name: "a native agent's cancel", wire: cancelled, native: true, want: "the client cancelled a prompt of a native agent"},
		{name: "a session of another process", wire: append(handshake[:4:4],
			`> {"jsonrpc":"2.0","id":2,"method":"session/load","params":{"sessionId":"old","cwd":"/w/proj","mcpServers":[]}}`, `< {"jsonrpc":"2.0","id":2,"result":{}}`),
			want: "names the session old, which this capture did not create"},
		{name: "a permission cancelled", wire: append(handshake[:4:4],
			`< {"jsonrpc":"2.0","id":7,"method":"session/request_permission","params":{"options":[]}}`,
			`> {"jsonrpc":"2.0","id":7,"result":{"outcome":{"outcome":"cancelled"}}}`),
			want: "without choosing an option"},
		{name: "not JSON", wire: wire{"> hello"}, want: "the client's line 1 is not a JSON-RPC message"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, _ := play(c.wire)
			if c.native {
				r.calls = nil
			}
			_, err := r.Script(c.calls)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

// TestOtherFolder: a session for another folder is answered by the
// recorder with an error and never reaches the agent or the script.
func TestOtherFolder(t *testing.T) {
	r, answers := play(wire{handshake[0], handshake[1], `> {"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/elsewhere","mcpServers":[]}}`})
	if len(answers) != 1 || !strings.Contains(answers[0], `"id":1`) || !strings.Contains(answers[0], "this capture records the folder it was started in, /w/proj") {
		t.Fatalf("answers: %q", answers)
	}
	s, err := r.Script(nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{`{"op":"initialize"}`}, steps(load(t, s.Input))); d != "" {
		t.Errorf("steps (-want +got):\n%s", d)
	}
}

// FuzzRecorder shows the recorder any lines on both sides: it never
// panics, and a script it writes is one acpsnap reads.
func FuzzRecorder(f *testing.F) {
	for _, l := range handshake {
		f.Add(l[2:], l[:1] == ">")
	}
	f.Add(`{"jsonrpc":"2.0","id":2,"method":"session/prompt","params":{"sessionId":"s-1","prompt":[{"type":"text","text":"x"}]}}`, true)
	f.Add(`{"jsonrpc":"2.0","id":2,"result":{"stopReason":"end_turn"}}`, false)
	f.Add(`{"jsonrpc":"2.0","id":9,"method":"session/request_permission","params":{"options":[{"optionId":"a","kind":"allow_once"}]}}`, false)
	f.Add(`{"jsonrpc":"2.0","id":9,"result":{"outcome":{"outcome":"selected","optionId":"a"}}}`, true)
	f.Fuzz(func(t *testing.T, line string, client bool) {
		r, _ := play(handshake)
		for _, part := range strings.Split(line, "\n") {
			if client {
				r.Client([]byte(part))
			} else {
				r.Agent([]byte(part))
			}
			client = !client
		}
		s, err := r.Script(nil)
		if err != nil {
			return
		}
		load(t, s.Input)
	})
}
