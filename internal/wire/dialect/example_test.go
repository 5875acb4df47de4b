package dialect_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
	"github.com/acpsnap/acpsnap/model"
)

// roundTrip prints a text answer as the named dialect's server streams it,
// then the chunks its codec decodes from that stream.
func roundTrip(name string) {
	d, err := dialect.Lookup(name)
	if err != nil {
		fmt.Println(err)
		return
	}
	chunks := []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: model.BlockText},
		{Type: model.TextDelta, Index: 0, Text: "Hi"},
		{Type: model.BlockEnd, Index: 0},
		{Type: model.Usage, InputTokens: 3, OutputTokens: 1},
		{Type: model.Finish, Reason: model.FinishStop},
	}
	var stream strings.Builder
	for _, ev := range d.Codec.Render(wire.Response{ID: "x1", Model: "m", Chunks: chunks}) {
		stream.Write(ev.Bytes())
	}
	os.Stdout.WriteString(stream.String())
	err = d.Codec.Decode(strings.NewReader(stream.String()), func(c model.Chunk) error {
		b, _ := c.MarshalJSON()
		fmt.Println(string(b))
		return nil
	})
	fmt.Println("error:", err)
}

// A text answer, rendered as the stream a server sends and parsed back.
func Example_anthropic() {
	roundTrip("anthropic-messages")
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

// A text answer, rendered as the stream a server sends and parsed back.
func Example_openaiChat() {
	roundTrip("openai-chat")
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

// A text answer, rendered as the stream a server sends and parsed back.
func Example_openaiResponses() {
	roundTrip("openai-responses")
	// Output:
	// event: response.created
	// data: {"type":"response.created","sequence_number":0,"response":{"id":"x1","object":"response","created_at":0,"status":"in_progress","error":null,"incomplete_details":null,"model":"m","output":[],"usage":null}}
	//
	// event: response.in_progress
	// data: {"type":"response.in_progress","sequence_number":1,"response":{"id":"x1","object":"response","created_at":0,"status":"in_progress","error":null,"incomplete_details":null,"model":"m","output":[],"usage":null}}
	//
	// event: response.output_item.added
	// data: {"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{"id":"msg_x1_0","type":"message","status":"in_progress","role":"assistant","content":[]}}
	//
	// event: response.content_part.added
	// data: {"type":"response.content_part.added","sequence_number":3,"output_index":0,"item_id":"msg_x1_0","content_index":0,"part":{"type":"output_text","annotations":[],"text":""}}
	//
	// event: response.output_text.delta
	// data: {"type":"response.output_text.delta","sequence_number":4,"output_index":0,"item_id":"msg_x1_0","content_index":0,"delta":"Hi"}
	//
	// event: response.output_text.done
	// data: {"type":"response.output_text.done","sequence_number":5,"output_index":0,"item_id":"msg_x1_0","content_index":0,"text":"Hi"}
	//
	// event: response.content_part.done
	// data: {"type":"response.content_part.done","sequence_number":6,"output_index":0,"item_id":"msg_x1_0","content_index":0,"part":{"type":"output_text","annotations":[],"text":"Hi"}}
	//
	// event: response.output_item.done
	// data: {"type":"response.output_item.done","sequence_number":7,"output_index":0,"item":{"id":"msg_x1_0","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","annotations":[],"text":"Hi"}]}}
	//
	// event: response.completed
	// data: {"type":"response.completed","sequence_number":8,"response":{"id":"x1","object":"response","created_at":0,"status":"completed","error":null,"incomplete_details":null,"model":"m","output":[{"id":"msg_x1_0","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","annotations":[],"text":"Hi"}]}],"usage":{"input_tokens":3,"input_tokens_details":{"cached_tokens":0},"output_tokens":1,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":4}}}
	//
	// {"blockType":"text","index":0,"type":"block-start"}
	// {"index":0,"text":"Hi","type":"text-delta"}
	// {"index":0,"type":"block-end"}
	// {"inputTokens":3,"outputTokens":1,"type":"usage"}
	// {"reason":"stop","type":"finish"}
	// error: <nil>
}
