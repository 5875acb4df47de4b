package proxy_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/proxy"
)

// A replay: the recorded exchange is served to the matching request (key
// order is not identity, ignored members are not either); another request
// is a drift that names the changed path.
func ExampleStart() {
	recorded := []httplog.Exchange{{
		Request: httplog.Request{Method: "POST", Path: "/responses", Header: map[string]string{"content-type": "application/json"},
			Body: []byte(`{"model":"gpt-5.4","input":[{"role":"user","content":"hi"}],"prompt_cache_key":"{{uuid:1}}"}`)},
		Response: httplog.Response{Status: 200, Stream: true, Events: []httplog.SSEEvent{
			{Event: "response.output_text.delta", Data: []byte(`{"delta":"Hello"}`)},
		}},
	}}
	p, err := proxy.Start(context.Background(), proxy.Config{
		Dialect: "openai-responses", Exchanges: recorded, Ignore: []string{"/prompt_cache_key"},
	})
	if err != nil {
		panic(err)
	}
	call := func(body string) {
		resp, err := http.Post(p.URL()+"/responses", "application/json", strings.NewReader(body))
		if err != nil {
			panic(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		fmt.Println(resp.StatusCode, resp.Header.Get(proxy.ErrorHeader), strings.ReplaceAll(strings.TrimSpace(string(b)), "\n", " | "))
	}
	call(`{"input":[{"content":"hi","role":"user"}],"model":"gpt-5.4","prompt_cache_key":"live-7"}`)
	call(`{"input":[{"content":"hey","role":"user"}],"model":"gpt-5.4"}`)
	p.Close()
	fmt.Println(p.Report().Err())
	// Output:
	// 200  event: response.output_text.delta | data: {"delta":"Hello"}
	// 400 request drift {"error":{"message":"acpsnap: request drift: this request matches no recorded exchange; re-record the scenario (nearest call 1 differs at $.input[0].content)","type":"api_error","code":"BAD_REQUEST"}}
	// proxy: request drift: POST /responses (request 2) matches no recorded exchange; nearest recorded call 1 differs at:
	//   $.input[0].content: recorded "hi", request "hey"
}
