package harness_test

import (
	"strings"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/testagents/fakeagent"
)

// FuzzClientSide plays a fake agent that writes arbitrary bytes on its
// stdout (requests for every client method, responses to ids never sent,
// huge ids, partial lines, floods) before it serves a normal handshake and
// prompt. Whatever it writes, the run must end in bounded time, without a
// panic, leave nothing behind (run checks), and fail, if it fails, with
// one error that says which step and why.
func FuzzClientSide(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n",
		`{"jsonrpc":"2.0","id":99999999999999999999999999999999,"result":{}}` + "\n",
		`{"jsonrpc":"2.0","id":1e400,"error":{"code":-32603,"message":"x"}}` + "\n",
		`{"jsonrpc":"2.0","id":"r1","method":"fs/read_text_file","params":{"sessionId":"s","path":"/etc/passwd"}}` + "\n",
		`{"jsonrpc":"2.0","id":2,"method":"terminal/output","params":{"sessionId":"s","terminalId":"term-9"}}` + "\n",
		`{"jsonrpc":"2.0","id":3,"method":"session/request_permission","params":{"sessionId":"s","toolCall":{"toolCallId":"t"},"options":[]}}` + "\n",
		`{"jsonrpc":"2.0","id":4,"method":"no/such","params":null}` + "\n" + `{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":4}}` + "\n",
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"nope"}}}` + "\n",
		`{"jsonrpc":"2.0","id":5,"method":"fs/write_text_file","params":{"sessionId":"s","path":"relative","content":"x"}}` + "\n",
		`{"jsonrpc":"2.0","id":{"a":1},"result":1}` + "\n" + `{"jsonrpc":"2.0"}` + "\n",
		`{"jsonrpc":"2.0","method":"session/up`,
		strings.Repeat(`{"jsonrpc":"2.0","method":"_x","params":{}}`+"\n", 1200),
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, out []byte) {
		if len(out) > 64<<10 {
			return
		}
		dir := scenario{script: fakeagent.Script{Start: []fakeagent.Action{{StdoutExact: out}}},
			input: input(t, basicSteps, map[string]any{"permissionAnswers": []map[string]string{{"kind": "allow_once"}}})}.write(t)
		res, err := run(t, dir, func(c *harness.Config) {
			c.StepTimeout = 500 * time.Millisecond // the fake answers at once; a wait means the input broke it
			c.Grace = 100 * time.Millisecond
		})
		if err == nil {
			if res == nil {
				t.Fatal("no error and no result")
			}
			return
		}
		t.Log(err)
		msg := err.Error()
		if !strings.HasPrefix(msg, "harness: fake: ") {
			t.Errorf("error without the scenario prefix: %v", err)
		}
		if strings.Contains(msg, "panic") {
			t.Errorf("error mentions a panic: %v", err)
		}
	})
}
