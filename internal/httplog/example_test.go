package httplog_test

import (
	"context"
	"fmt"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/sessionlog"
)

func ExampleCompose() {
	sse := httplog.Response{Status: 200, Stream: true, Events: []httplog.SSEEvent{{Data: []byte(`{"choices":[]}`)}, {Data: []byte(`[DONE]`)}}}
	xs := []httplog.Exchange{
		{Request: httplog.Request{Method: "POST", Path: "/chat/completions",
			Body: []byte(`{"model":"m","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"}],"stream":true}`)}, Response: sse},
		{Request: httplog.Request{Method: "POST", Path: "/chat/completions",
			Body: []byte(`{"model":"m","messages":[{"role":"system","content":"Be brief."},{"role":"user","content":"hi"},{"role":"assistant","content":"Hello."},{"role":"user","content":"bye"}],"stream":true}`)}, Response: sse},
	}
	pins := httplog.OpenPins("pins").Overlay() // keeps the values until pins.Write

	log, err := httplog.Compose(context.Background(), xs, httplog.ComposedHeader{ID: "{{session:0}}", Cwd: "{{cwd}}", Dialect: "openai-chat",
		Agent: sessionlog.AgentInfo{Name: "my-agent", Version: "1.0"}}, pins)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s", log)
	for _, f := range pins.Fresh() {
		fmt.Printf("%s: %q\n", f.Path, f.Data)
	}

	_, back, err := httplog.Decompose(log, "session.jsonl", pins)
	fmt.Println(string(back[1].Request.Body) == string(xs[1].Request.Body), err)
	// Output:
	// {"type":"session","version":1,"id":"{{session:0}}","createdAt":0,"cwd":"{{cwd}}","dialect":"openai-chat","agent":{"name":"my-agent","version":"1.0"}}
	// {"type":"model/request","seq":0,"time":0,"data":{"call":1,"method":"POST","path":"/chat/completions","body":{"model":"m","messages":[{"role":"system","content":"{{pin:system:213c22ed7234}}"},{"role":"user","content":"hi"}],"stream":true}}}
	// {"type":"model/status","seq":1,"time":0,"data":{"call":1,"status":200,"stream":true}}
	// {"type":"model/event","seq":2,"time":0,"data":{"call":1,"data":{"choices":[]}}}
	// {"type":"model/event","seq":3,"time":0,"data":{"call":1,"dataText":"[DONE]"}}
	// {"type":"model/request","seq":4,"time":0,"data":{"call":2,"method":"POST","path":"/chat/completions","base":1,"append":[{"role":"assistant","content":"Hello."},{"role":"user","content":"bye"}]}}
	// {"type":"model/status","seq":5,"time":0,"data":{"call":2,"status":200,"stream":true}}
	// {"type":"model/event","seq":6,"time":0,"data":{"call":2,"data":{"choices":[]}}}
	// {"type":"model/event","seq":7,"time":0,"data":{"call":2,"dataText":"[DONE]"}}
	// pins/system-213c22ed7234.md: "Be brief."
	// true <nil>
}
