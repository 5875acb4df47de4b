package dialect_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/openaichat"
	"github.com/acpsnap/acpsnap/model"
)

// A text answer, rendered as the stream a server sends and parsed back.
func Example_openaiChat() {
	chunks := []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: model.BlockText},
		{Type: model.TextDelta, Index: 0, Text: "Hi"},
		{Type: model.BlockEnd, Index: 0},
		{Type: model.Usage, InputTokens: 3, OutputTokens: 1},
		{Type: model.Finish, Reason: model.FinishStop},
	}
	var wireBytes strings.Builder
	for _, ev := range openaichat.Render(wire.Response{ID: "x1", Model: "m", Chunks: chunks}) {
		wireBytes.Write(ev.Bytes())
	}
	os.Stdout.WriteString(wireBytes.String())
	err := openaichat.Decode(strings.NewReader(wireBytes.String()), func(c model.Chunk) error {
		b, _ := c.MarshalJSON()
		fmt.Println(string(b))
		return nil
	})
	fmt.Println("error:", err)
	// Output:
	// data: {"id":"x1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}
	//
	// data: {"id":"x1","object":"chat.completion.chunk","created":0,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}
	//
	// data: {"id":"x1","object":"chat.completion.chunk","created":0,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}
	//
	// data: [DONE]
	//
	// {"blockType":"text","index":0,"type":"block-start"}
	// {"index":0,"text":"Hi","type":"text-delta"}
	// {"index":0,"type":"block-end"}
	// {"inputTokens":3,"outputTokens":1,"type":"usage"}
	// {"reason":"stop","type":"finish"}
	// error: <nil>
}
