package deepseek_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/acpsnap/acpsnap/agent/internal/deepseek"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/model"
)

// Stream against llmreplay's scripted server, which speaks DeepSeek's
// dialect: the chunks come back as scripted. Against DeepSeek itself, leave
// BaseURL empty and set APIKey.
func ExampleProvider_Stream() {
	script, err := replay.DecodeScript(strings.NewReader(`[{"kind":"chunks","chunks":[
		{"type":"block-start","index":0,"blockType":"reasoning"},
		{"type":"reasoning-delta","index":0,"text":"Greet back."},
		{"type":"block-end","index":0},
		{"type":"block-start","index":1,"blockType":"text"},
		{"type":"text-delta","index":1,"text":"Hello!"},
		{"type":"block-end","index":1},
		{"type":"usage","inputTokens":9,"outputTokens":4},
		{"type":"finish","reason":"stop"}]}]`), "script.json")
	if err != nil {
		panic(err)
	}
	srv, err := replay.NewServer(replay.ServerConfig{Primary: script})
	if err != nil {
		panic(err)
	}
	defer srv.Close()

	p := deepseek.New(deepseek.Config{APIKey: "sk-test", BaseURL: srv.URL()})
	req := model.Request{System: "Be terse.", Messages: []model.Message{{Role: "user", Content: "Hi"}}}
	err = p.Stream(context.Background(), req, func(c model.Chunk) error {
		b, err := json.Marshal(c)
		fmt.Println(string(b))
		return err
	})
	fmt.Println("error:", err)
	// Output:
	// {"blockType":"reasoning","index":0,"type":"block-start"}
	// {"index":0,"text":"Greet back.","type":"reasoning-delta"}
	// {"index":0,"type":"block-end"}
	// {"blockType":"text","index":1,"type":"block-start"}
	// {"index":1,"text":"Hello!","type":"text-delta"}
	// {"index":1,"type":"block-end"}
	// {"inputTokens":9,"outputTokens":4,"type":"usage"}
	// {"reason":"stop","type":"finish"}
	// error: <nil>
}
