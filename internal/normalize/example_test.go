package normalize_test

import (
	"fmt"

	"github.com/acpsnap/acpsnap/internal/normalize"
)

func ExampleSession() {
	log := `{"type":"session","version":1,"id":"6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5","createdAt":1764496745000,"cwd":"/tmp/run1/wd","delegationDepth":0}
{"type":"user/message","seq":0,"time":1764496745010,"data":{"turn":1,"id":"msg_1","content":[{"type":"text","text":"read /tmp/run1/wd/notes.txt"}]}}
{"type":"tool/call","seq":1,"time":1764496745020,"data":{"turn":1,"step":1,"callId":"call_0_x9","name":"read_file","arguments":"{\"path\":\"/tmp/run1/wd/notes.txt\"}"}}
`
	c := normalize.NewContext("/tmp/run1/wd")
	out, err := normalize.Session([]byte(log), c)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// {"createdAt":0,"cwd":"{{cwd}}","delegationDepth":0,"id":"{{session:1}}","type":"session","version":1}
	// {"data":{"content":[{"text":"read {{cwd}}/notes.txt","type":"text"}],"id":"{{message:1}}","turn":1},"seq":0,"time":0,"type":"user/message"}
	// {"data":{"arguments":"{\"path\":\"{{cwd}}/notes.txt\"}","callId":"{{toolCall:1}}","name":"read_file","step":1,"turn":1},"seq":1,"time":0,"type":"tool/call"}
}

func ExampleStdout() {
	stdout := `{"jsonrpc":"2.0","id":1,"result":{"sessionId":"6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5"}}
{"jsonrpc":"2.0","id":17,"method":"session/request_permission","params":{"sessionId":"6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5","toolCall":{"toolCallId":"call_0_x9","title":"bash: ls /tmp/run1/wd"}}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"6f1c2d3e-4a5b-4c6d-8e7f-8091a2b3c4d5","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Done at 2026-11-30T10:19:05Z."}}}}
`
	c := normalize.NewContext("/tmp/run1/wd")
	out, err := normalize.Stdout([]byte(stdout), c)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// {"id":1,"jsonrpc":"2.0","result":{"sessionId":"{{session:1}}"}}
	// {"id":"{{agentRpc:1}}","jsonrpc":"2.0","method":"session/request_permission","params":{"sessionId":"{{session:1}}","toolCall":{"title":"bash: ls {{cwd}}","toolCallId":"{{toolCall:1}}"}}}
	// {"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{session:1}}","update":{"content":{"text":"Done at {{time}}.","type":"text"},"sessionUpdate":"agent_message_chunk"}}}
}

func ExampleFixtureContext() {
	fixture := []byte(`{"type":"session","version":1,"id":"{{session:1}}","createdAt":0,"cwd":"{{cwd}}","delegationDepth":0}
`)
	c, err := normalize.FixtureContext(fixture)
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := normalize.Session(fixture, c)
	fmt.Print(string(out))
	// Output:
	// {"createdAt":0,"cwd":"{{cwd}}","delegationDepth":0,"id":"{{session:1}}","type":"session","version":1}
}

func ExampleContext_AddPath() {
	const root = "/tmp/acpsnap-1f2e"
	c := normalize.NewContext(root + "/workspace")
	c.AddPath("home", root+"/home")
	c.AddPath("root", root)
	stdout := `{"method":"session/update","params":{"text":"pwd: ` + root + `/workspace, HOME: ` + root + `/home, parent: ` + root + `, file://` + root + `/home/.cache/x"}}`
	out, err := normalize.Stdout([]byte(stdout), c)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(out))
	// Output:
	// {"method":"session/update","params":{"text":"pwd: {{cwd}}, HOME: {{home}}, parent: {{root}}, file://{{home}}/.cache/x"}}
}
