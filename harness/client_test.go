package harness_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/fakeagent"
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
	if err := os.Symlink("/etc", dir+"/workspace/out"); err != nil {
		t.Fatal(err)
	}
	res, err, _ := run(t, dir, nil)
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
