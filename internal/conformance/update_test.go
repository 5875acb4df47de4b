package conformance_test

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/conformance"
)

func TestParse(t *testing.T) {
	type testCase struct {
		name string
		line string
		want conformance.Update
		ok   bool
	}
	for _, tc := range []testCase{
		{"chunk", `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}`,
			conformance.Update{Session: "s1", Kind: "agent_message_chunk", Update: []byte(`{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}`)}, true},
		{"a kind the SDK does not know", `{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"vendor_thing","x":1}}}`,
			conformance.Update{Session: "s", Kind: "vendor_thing", Update: []byte(`{"sessionUpdate":"vendor_thing","x":1}`)}, true},
		{"no update", `{"method":"session/update","params":{"sessionId":"s"}}`, conformance.Update{Session: "s"}, true},
		{"another method", `{"method":"session/request_permission","params":{"sessionId":"s","update":{"sessionUpdate":"plan"}}}`, conformance.Update{}, false},
		{"a response", `{"jsonrpc":"2.0","id":1,"result":{}}`, conformance.Update{}, false},
		{"numeric session", `{"method":"session/update","params":{"sessionId":7,"update":{"sessionUpdate":"plan"}}}`, conformance.Update{}, false},
		{"numeric kind", `{"method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":3}}}`, conformance.Update{}, false},
		{"update not an object", `{"method":"session/update","params":{"sessionId":"s","update":"plan"}}`, conformance.Update{}, false},
		{"not JSON", `session/update`, conformance.Update{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := conformance.ParseUpdate([]byte(tc.line))
			if ok != tc.ok {
				t.Errorf("ok = %v, want %v", ok, tc.ok)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseUpdate (-want +got):\n%s", diff)
			}
		})
	}
}

func ExampleParseUpdate() {
	line := []byte(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"available_commands_update","availableCommands":[]}}}`)
	if n, ok := conformance.ParseUpdate(line); ok {
		fmt.Println(n.Session, n.Kind)
	}
	// Output: s1 available_commands_update
}
