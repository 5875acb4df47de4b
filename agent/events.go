package agent

import (
	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/model"
)

// Session log event types; doc.go documents each one's data.
const (
	evTurnStart        = "turn/start"
	evTurnEnd          = "turn/end"
	evStepStart        = "step/start"
	evStepEnd          = "step/end"
	evUserMessage      = "user/message"
	evRequestHeader    = "request/header"
	evAssistantChunk   = "assistant/chunk"
	evAssistantMessage = "assistant/message"
	evToolCall         = "tool/call"
	evToolResult       = "tool/result"
	evApprovalAsked    = "approval/asked"
	evApprovalDecided  = "approval/decided"
	evSubagent         = "subagent/descriptor"
)

// Turn end kinds (turn/end reason.kind).
const (
	endCompleted = "completed"
	endAborted   = "aborted"
	endError     = "error"
	endMaxTokens = "max-tokens"
	endMaxSteps  = "max-steps"
)

type turnData struct {
	Turn int `json:"turn"`
}

type turnEndData struct {
	Turn   int       `json:"turn"`
	Reason endReason `json:"reason"`
}

// endReason is why a turn ended. By is set for aborted turns ("user" or
// "disposed"); model.Message and Code for failed ones.
type endReason struct {
	Kind    string `json:"kind"`
	By      string `json:"by,omitempty"`
	Message string `json:"message,omitempty"`
	Code    string `json:"code,omitempty"`
}

type stepData struct {
	Turn int `json:"turn"`
	Step int `json:"step"`
}

type userMessageData struct {
	Turn    int                `json:"turn"`
	ID      string             `json:"id"`
	Content []acp.ContentBlock `json:"content"`
}

type requestHeaderData struct {
	Turn   int              `json:"turn"`
	Step   int              `json:"step"`
	Model  string           `json:"model"`
	System string           `json:"system"`
	Tools  []model.ToolSpec `json:"tools"`
}

type chunkData struct {
	Turn  int         `json:"turn"`
	Step  int         `json:"step"`
	Chunk model.Chunk `json:"chunk"`
}

type assistantMessageData struct {
	Turn      int              `json:"turn"`
	Step      int              `json:"step"`
	ID        string           `json:"id"`
	Text      string           `json:"text"`
	Reasoning string           `json:"reasoning,omitempty"`
	ToolCalls []model.ToolCall `json:"toolCalls,omitempty"`
}

type toolCallData struct {
	Turn      int    `json:"turn"`
	Step      int    `json:"step"`
	CallID    string `json:"callId"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type toolResultData struct {
	Turn    int    `json:"turn"`
	Step    int    `json:"step"`
	CallID  string `json:"callId"`
	Content string `json:"content"`
	Error   bool   `json:"error,omitempty"`
}

type approvalAskedData struct {
	Turn       int      `json:"turn"`
	CallID     string   `json:"callId"`
	ApprovalID string   `json:"approvalId"`
	Options    []string `json:"options"`
}

type approvalDecidedData struct {
	Turn       int    `json:"turn"`
	CallID     string `json:"callId"`
	ApprovalID string `json:"approvalId"`
	Outcome    string `json:"outcome"`
}

type subagentData struct {
	Turn         int    `json:"turn"`
	CallID       string `json:"callId"`
	ChildSession string `json:"childSession,omitempty"` // without a subagent boundary
	Cassette     bool   `json:"cassette,omitempty"`     // behind a subagent boundary: no child session of its own
}
