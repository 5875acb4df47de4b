package harness_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/testagents/fakeagent"
)

// answer is one client/answer event the fake agent logged: what the
// harness answered to one of its requests.
type answer struct {
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
		Data struct {
			Error string `json:"error"`
		} `json:"data"`
	} `json:"error"`
}

func TestClientMethods(t *testing.T) {
	call := func(method, params string) fakeagent.Action {
		return fakeagent.Action{Call: method, Params: json.RawMessage(params)}
	}
	permission := `{"sessionId":"{{session}}","toolCall":{"toolCallId":"call_1"},"options":[` +
		`{"optionId":"yes","name":"Allow","kind":"allow_once"},{"optionId":"no","name":"Reject","kind":"reject_once"}]}`
	type want struct {
		method string
		result string // compact JSON; "" when an error is expected
		code   int
		errHas string
	}
	cases := []struct {
		call fakeagent.Action
		want want
	}{
		{call("session/request_permission", permission), want{"session/request_permission", `{"outcome":{"optionId":"no","outcome":"selected"}}`, 0, ""}},
		{call("session/request_permission", permission), want{"session/request_permission", `{"outcome":{"optionId":"yes","outcome":"selected"}}`, 0, ""}},
		{call("fs/write_text_file", `{"sessionId":"{{session}}","path":"{{cwd}}/sub/new.txt","content":"one\ntwo\nthree\n"}`), want{"fs/write_text_file", `{}`, 0, ""}},
		{call("fs/read_text_file", `{"sessionId":"{{session}}","path":"{{cwd}}/sub/new.txt","line":2,"limit":1}`), want{"fs/read_text_file", `{"content":"two\n"}`, 0, ""}},
		{call("fs/read_text_file", `{"sessionId":"{{session}}","path":"{{cwd}}/seed.txt"}`), want{"fs/read_text_file", `{"content":"seeded\n"}`, 0, ""}},
		{call("fs/read_text_file", `{"sessionId":"{{session}}","path":"/etc/hostname"}`), want{"fs/read_text_file", "", -32603, "outside the session cwd"}},
		{call("fs/write_text_file", `{"sessionId":"{{session}}","path":"{{cwd}}/../escape.txt","content":"x"}`), want{"fs/write_text_file", "", -32603, "outside the session cwd"}},
		{call("fs/read_text_file", `{"sessionId":"{{session}}","path":"{{cwd}}/out/passwd"}`), want{"fs/read_text_file", "", -32603, "symbolic link"}},
		{call("fs/write_text_file", `{"sessionId":"{{session}}","path":"{{cwd}}/dang","content":"x"}`), want{"fs/write_text_file", "", -32603, "symbolic link"}},
		{call("fs/read_text_file", `{"sessionId":"{{session}}","path":"seed.txt"}`), want{"fs/read_text_file", "", -32603, "not absolute"}},
		{call("terminal/create", `{"sessionId":"{{session}}","command":"sh","args":["-c","printf hello; exit 3"]}`), want{"terminal/create", `{"terminalId":"term-1"}`, 0, ""}},
		{call("terminal/wait_for_exit", `{"sessionId":"{{session}}","terminalId":"{{terminal}}"}`), want{"terminal/wait_for_exit", `{"exitCode":3}`, 0, ""}},
		{call("terminal/output", `{"sessionId":"{{session}}","terminalId":"{{terminal}}"}`), want{"terminal/output", `{"exitStatus":{"exitCode":3},"output":"hello","truncated":false}`, 0, ""}},
		{call("terminal/release", `{"sessionId":"{{session}}","terminalId":"{{terminal}}"}`), want{"terminal/release", `{}`, 0, ""}},
		{call("terminal/output", `{"sessionId":"{{session}}","terminalId":"{{terminal}}"}`), want{"terminal/output", "", -32603, "unknown terminal"}},
		{call("terminal/create", `{"sessionId":"{{session}}","command":"sh","args":["-c","test \"${PWD##*/}\" = sub && printf 'héllo wörld'"],"outputByteLimit":4,"cwd":"{{cwd}}/sub"}`), want{"terminal/create", `{"terminalId":"term-2"}`, 0, ""}},
		{call("terminal/wait_for_exit", `{"sessionId":"{{session}}","terminalId":"{{terminal}}"}`), want{"terminal/wait_for_exit", `{"exitCode":0}`, 0, ""}},
		{call("terminal/output", `{"sessionId":"{{session}}","terminalId":"{{terminal}}"}`), want{"terminal/output", `{"exitStatus":{"exitCode":0},"output":"rld","truncated":true}`, 0, ""}},
		{call("terminal/create", `{"sessionId":"{{session}}","command":"true","cwd":"/tmp"}`), want{"terminal/create", "", -32603, "outside the session cwd"}},
		{call("terminal/create", `{"sessionId":"{{session}}","command":"sleep","args":["300"]}`), want{"terminal/create", `{"terminalId":"term-3"}`, 0, ""}},
		{call("terminal/kill", `{"sessionId":"{{session}}","terminalId":"{{terminal}}"}`), want{"terminal/kill", `{}`, 0, ""}},
		{call("terminal/wait_for_exit", `{"sessionId":"{{session}}","terminalId":"{{terminal}}"}`), want{"terminal/wait_for_exit", `{"signal":"SIGKILL"}`, 0, ""}},
		{call("terminal/output", `{"sessionId":"{{session}}","terminalId":"{{terminal}}"}`), want{"terminal/output", `{"exitStatus":{"signal":"SIGKILL"},"output":"","truncated":false}`, 0, ""}},
		{call("terminal/create", `{"sessionId":"{{session}}","command":"sleep","args":["300"]}`), want{"terminal/create", `{"terminalId":"term-4"}`, 0, ""}}, // left running: shutdown kills it
		{call("foo/bar", `{}`), want{"foo/bar", "", -32601, ""}},
	}
	var actions []fakeagent.Action
	var wants []want
	for _, c := range cases {
		actions = append(actions, c.call)
		wants = append(wants, c.want)
	}
	sc := scenario{
		script: fakeagent.Script{Prompts: [][]fakeagent.Action{actions}},
		input: input(t, []map[string]any{op("initialize"), op("newSession"), op("prompt", "text", "go")},
			map[string]any{"permissionAnswers": []map[string]string{{"kind": "reject_once"}, {"kind": "allow_once"}}}),
		files: map[string]string{"workspace/seed.txt": "seeded\n"},
	}
	dir := sc.write(t)
	for name, target := range map[string]string{"out": "/etc", "dang": "../../outside.txt"} {
		if err := os.Symlink(target, dir+"/workspace/"+name); err != nil {
			t.Fatal(err)
		}
	}
	res, err := run(t, dir, nil) // run fails if ../../outside.txt (in its TempDir) was made
	if err != nil {
		t.Fatal(err)
	}
	var got []want
	for _, raw := range events(t, res.Logs[0], "client/answer") {
		var a answer
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		w := want{method: a.Method}
		if a.Error != nil {
			w.code = a.Error.Code
			w.errHas = a.Error.Data.Error
		} else {
			w.result = string(a.Result)
		}
		got = append(got, w)
	}
	// Error texts only need to contain the expected words.
	for i := range got {
		if i < len(wants) && wants[i].errHas != "" && strings.Contains(got[i].errHas, wants[i].errHas) {
			got[i].errHas = wants[i].errHas
		}
	}
	if diff := cmp.Diff(wants, got, cmp.AllowUnexported(want{})); diff != "" {
		t.Errorf("answers to the agent's requests (-want +got):\n%s", diff)
	}
}

// TestTerminalEnvironment runs env in a client terminal: it sees the
// agent's environment and the request's env, never a secret or ACPSNAP_*
// (a recorded fixture would keep them).
func TestTerminalEnvironment(t *testing.T) {
	tests := []struct {
		name string
		mode harness.Mode
	}{
		{"replay", "replay"},
		{"record", "record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			call := func(method, params string) fakeagent.Action {
				return fakeagent.Action{Call: method, Params: json.RawMessage(params)}
			}
			sc := scenario{
				script: fakeagent.Script{Prompts: [][]fakeagent.Action{{
					call("terminal/create", `{"sessionId":"{{session}}","command":"env","env":[{"name":"REQUEST_VAR","value":"from-request"}]}`),
					call("terminal/wait_for_exit", `{"sessionId":"{{session}}","terminalId":"{{terminal}}"}`),
					call("terminal/output", `{"sessionId":"{{session}}","terminalId":"{{terminal}}"}`),
				}}},
				input: input(t, []map[string]any{op("initialize"), op("newSession"), op("prompt", "text", "env")}, nil),
				files: map[string]string{"session.jsonl": "", "replay.override.json": "[]"},
			}
			res, err := run(t, sc.write(t), func(c *harness.Config) {
				c.Mode = tt.mode
				c.Secrets = map[string]string{"DEEPSEEK_API_KEY": "sk-test", "DEEPSEEK_MODEL": "m"}
			})
			if err != nil {
				t.Fatal(err)
			}
			answers := events(t, res.Logs[0], "client/answer")
			var out struct {
				Result struct {
					Output string `json:"output"`
				} `json:"result"`
			}
			if err := json.Unmarshal(answers[len(answers)-1], &out); err != nil {
				t.Fatal(err)
			}
			type view struct {
				Hidden []string          // DEEPSEEK_* and ACPSNAP_* names
				Seen   map[string]string // the variables that must get through
			}
			got := view{Seen: map[string]string{}}
			for _, line := range strings.Split(out.Result.Output, "\r\n") {
				k, v, _ := strings.Cut(line, "=")
				switch {
				case strings.HasPrefix(k, "DEEPSEEK_") || strings.HasPrefix(k, "ACPSNAP_"):
					got.Hidden = append(got.Hidden, k)
				case k == "REQUEST_VAR" || k == "SCENARIO_VAR" || k == "TZ":
					got.Seen[k] = v
				}
			}
			want := view{Seen: map[string]string{"REQUEST_VAR": "from-request", "SCENARIO_VAR": "from-manifest", "TZ": "UTC"}}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("terminal env (-want +got):\n%s\noutput:\n%s", diff, out.Result.Output)
			}
		})
	}
}
