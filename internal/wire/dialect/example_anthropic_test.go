package dialect_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/anthropic"
	"github.com/acpsnap/acpsnap/model"
)

// A text answer, rendered as the stream a server sends and parsed back.
func Example_anthropic() {
	chunks := []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: model.BlockText},
		{Type: model.TextDelta, Index: 0, Text: "Hi"},
		{Type: model.BlockEnd, Index: 0},
		{Type: model.Usage, InputTokens: 3, OutputTokens: 1},
		{Type: model.Finish, Reason: model.FinishStop},
	}
	var wireBytes strings.Builder
	for _, ev := range anthropic.Render(wire.Response{ID: "x1", Model: "m", Chunks: chunks}) {
		wireBytes.Write(ev.Bytes())
	}
	os.Stdout.WriteString(wireBytes.String())
	err := anthropic.Decode(strings.NewReader(wireBytes.String()), func(c model.Chunk) error {
		b, _ := c.MarshalJSON()
		fmt.Println(string(b))
		return nil
	})
	fmt.Println("error:", err)
	// Output:
	// event: message_start
	// data: {"type":"message_start","message":{"id":"x1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":0}}}
	//
	// event: ping
	// data: {"type":"ping"}
	//
	// event: content_block_start
	// data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}
	//
	// event: content_block_delta
	// data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}
	//
	// event: content_block_stop
	// data: {"type":"content_block_stop","index":0}
	//
	// event: message_delta
	// data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":3,"output_tokens":1}}
	//
	// event: message_stop
	// data: {"type":"message_stop"}
	//
	// {"blockType":"text","index":0,"type":"block-start"}
	// {"index":0,"text":"Hi","type":"text-delta"}
	// {"index":0,"type":"block-end"}
	// {"inputTokens":3,"outputTokens":1,"type":"usage"}
	// {"reason":"stop","type":"finish"}
	// error: <nil>
}
