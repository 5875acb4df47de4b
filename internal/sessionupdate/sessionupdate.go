// Package sessionupdate reads the ACP session/update notification, the
// one message of an agent's stdout that every reader looks into (the
// harness's waitForUpdate and ready.update, check's floating updates, the
// transcript, the probe's labels): its envelope is decoded here, once,
// with the ACP SDK's names for it, and the update itself is left as the
// agent wrote it for the reader that needs more than its kind.
//
//	if n, ok := sessionupdate.Parse(line); ok && n.Kind == "available_commands_update" {
//		... // n.Session, n.Update
//	}
//
// The notification is specified by ACP; docs/format.md ("Client script",
// waitForUpdate) and docs/agents.md (ready.update) say where acpsnap
// waits for one.
package sessionupdate

import (
	"encoding/json"

	acp "github.com/coder/acp-go-sdk"
)

// Method is the notification's JSON-RPC method.
const Method = acp.ClientMethodSessionUpdate

// Notification is one session/update notification.
type Notification struct {
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

// kind is an update as far as its discriminator.
type kind struct {
	SessionUpdate string `json:"sessionUpdate"`
}

// Parse returns the session/update notification line holds; false when
// line is not JSON, is another message, or its sessionId or
// update.sessionUpdate is not a string.
func Parse(line []byte) (Notification, bool) {
	var e envelope
	if json.Unmarshal(line, &e) != nil || e.Method != Method {
		return Notification{}, false
	}
	var k kind
	if len(e.Params.Update) > 0 && json.Unmarshal(e.Params.Update, &k) != nil {
		return Notification{}, false
	}
	return Notification{Session: e.Params.SessionID, Kind: k.SessionUpdate, Update: e.Params.Update}, true
}
