package conformance

import (
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"
)

// UpdateMethod is the notification's JSON-RPC method.
const UpdateMethod = acp.ClientMethodSessionUpdate

// Update is one session/update notification.
type Update struct {
	Session acp.SessionId   // params.sessionId
	Kind    string          // params.update.sessionUpdate: "agent_message_chunk", …
	Update  json.RawMessage // params.update, as the agent wrote it
}

// envelope is a JSON-RPC line as far as a session/update needs it.
type envelope struct {
	Method string `json:"method"`
	Params struct {
		SessionID acp.SessionId   `json:"sessionId"`
		Update    json.RawMessage `json:"update"`
	} `json:"params"`
}

// updateKind is an update as far as its discriminator.
type updateKind struct {
	SessionUpdate string `json:"sessionUpdate"`
}

// ParseUpdate returns the session/update notification line holds; false when
// line is not JSON, is another message, or its sessionId or
// update.sessionUpdate is not a string.
func ParseUpdate(line []byte) (Update, bool) {
	var e envelope
	if json.Unmarshal(line, &e) != nil || e.Method != UpdateMethod {
		return Update{}, false
	}
	var k updateKind
	if len(e.Params.Update) > 0 && json.Unmarshal(e.Params.Update, &k) != nil {
		return Update{}, false
	}
	return Update{Session: e.Params.SessionID, Kind: k.SessionUpdate, Update: e.Params.Update}, true
}
