package sessionupdate_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/sessionupdate"
)

func TestParse(t *testing.T) {
	type testCase struct {
		name string
		line string
		want sessionupdate.Notification
		ok   bool
	}
	for _, tc := range []testCase{
		{"chunk", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`,
			sessionupdate.Notification{Session: "s1", Kind: "agent_message_chunk", Update: []byte(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`)}, true},
		{"a kind the SDK does not know", `{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"vendor_thing","x":1}}}`,
			sessionupdate.Notification{Session: "s", Kind: "vendor_thing", Update: []byte(`{"sessionUpdate":"vendor_thing","x":1}`)}, true},
		{"no update", `{"method":"session/update","params":{"sessionId":"s"}}`, sessionupdate.Notification{Session: "s"}, true},
		{"another method", `{"method":"session/request_permission","params":{"sessionId":"s","update":{"sessionUpdate":"plan"}}}`, sessionupdate.Notification{}, false},
		{"a response", `{"jsonrpc":"2.0","id":1,"result":{}}`, sessionupdate.Notification{}, false},
		{"numeric session", `{"method":"session/update","params":{"sessionId":7,"update":{"sessionUpdate":"plan"}}}`, sessionupdate.Notification{}, false},
		{"numeric kind", `{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":3}}}`, sessionupdate.Notification{}, false},
		{"update not an object", `{"method":"session/update","params":{"sessionId":"s","update":"plan"}}`, sessionupdate.Notification{}, false},
		{"not JSON", `session/update`, sessionupdate.Notification{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := sessionupdate.Parse([]byte(tc.line))
			if ok != tc.ok {
				t.Errorf("ok = %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Parse (-want +got):\n%s", diff)
			}
		})
	}
}

func ExampleParse() {
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"available_commands_update","availableCommands":[]}}}`)
	if n, ok := sessionupdate.Parse(line); ok {
		fmt.Println(n.Session, n.Kind)
	}
	// Output: s1 available_commands_update
}
