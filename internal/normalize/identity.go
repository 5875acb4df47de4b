package normalize

// The identities of the formats acpsnap compares — ACP messages and the
// session log — by the key that holds them (docs/format.md,
// "Normalization"). Normalization numbers every value under these keys as
// a typed token ({{session:N}}, …); the formats' facts are in this file
// alone, so the rest of the package stays a generic transform.
var (
	// identityKeys maps a key to the kind of identity its string value is.
	identityKeys = map[string]string{
		"sessionId": "session", "parentSession": "session", "childSession": "session",
		"toolCallId": "toolCall", "callId": "toolCall", "spawnedBy": "toolCall",
		"messageId":  "message",
		"approvalId": "approval",
	}
	// messageEvents are the event types whose data "id" is a message id.
	messageEvents = map[string]bool{"user/message": true, "assistant/message": true}
	// toolCallObjects are the "type" values of objects whose "id" is a tool
	// call id (a tool-call chunk).
	toolCallObjects = map[string]bool{"tool-call-delta": true}
	// toolCallArrays are the keys of arrays whose elements' "id" is a tool
	// call id (an assistant message's calls, OpenAI's tool_calls).
	toolCallArrays = map[string]bool{"toolCalls": true, "tool_calls": true}
	// toolCallMembers are the keys of objects whose "id" is a tool call id
	// (Gemini's parts, whose ids the agent mints: the API sends none).
	toolCallMembers = map[string]bool{"functionCall": true, "functionResponse": true}
)
