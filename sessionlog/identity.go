package sessionlog

// The identities of the formats acpsnap compares — ACP messages and this
// session log — by the key that holds them (docs/format.md,
// "Normalization"). Package normalize numbers every value under these keys
// as a typed token ({{session:N}}, …); the formats are defined here, not
// there, so that normalization stays a generic transform.
var (
	// IdentityKeys maps a key to the kind of identity its string value is.
	IdentityKeys = map[string]string{
		"sessionId": "session", "parentSession": "session", "childSession": "session",
		"toolCallId": "toolCall", "callId": "toolCall", "spawnedBy": "toolCall",
		"messageId":  "message",
		"approvalId": "approval",
	}
	// MessageEvents are the event types whose data "id" is a message id.
	MessageEvents = map[string]bool{"user/message": true, "assistant/message": true}
	// ToolCallObjects are the "type" values of objects whose "id" is a tool
	// call id (a tool-call chunk).
	ToolCallObjects = map[string]bool{"tool-call-delta": true}
	// ToolCallArrays are the keys of arrays whose elements' "id" is a tool
	// call id (an assistant message's calls, OpenAI's tool_calls).
	ToolCallArrays = map[string]bool{"toolCalls": true, "tool_calls": true}
	// ToolCallMembers are the keys of objects whose "id" is a tool call id
	// (Gemini's parts, whose ids the agent mints: the API sends none).
	ToolCallMembers = map[string]bool{"functionCall": true, "functionResponse": true}
)
