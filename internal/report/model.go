package report

// Transcript is one scenario's conversation: its turns, in the order the
// client sent the prompts, and the model calls behind them.
type Transcript struct {
	Name  string
	Turns []Turn
	Calls []Call
	// Errors are the error answers to the client's requests other than
	// prompts (a session/new the agent refused), as "method: message".
	Errors []string
	// Source says where it was built from: "fixtures" (the committed,
	// normalized files) or "run" (what a failed run produced).
	Source string
}

// Turn is one prompt and what the agent did about it.
type Turn struct {
	Session string // the ACP session id (normalized: "{{session:1}}")
	Prompt  string // the prompt's text (other content blocks as "[kind]")
	Items   []Item
	Stop    string // the stop reason of the prompt's answer; "": none
	Error   string // the prompt's error answer; "": none
}

// Kind is the kind of a transcript item.
type Kind string

// The item kinds.
const (
	Message    Kind = "message"    // the agent's message, chunks merged
	Thought    Kind = "thought"    // the agent's reasoning, chunks merged
	ToolCall   Kind = "tool"       // a tool call (Item.Tool)
	Permission Kind = "permission" // a permission request and its answer (Item.Permission)
	Plan       Kind = "plan"       // a plan (Item.Plan)
	Mode       Kind = "mode"       // a mode change: Item.Text is the new mode
	Error      Kind = "error"      // an error the agent reported
	Subagent   Kind = "subagent"   // a child session's turn (Item.Turn), under its tool call
	Replayed   Kind = "replayed"   // a user message the agent sent back (a loaded session's history)
)

// Item is one thing that happened in a turn.
type Item struct {
	Kind       Kind
	Text       string
	Tool       *Tool
	Permission *Asked
	Plan       []PlanEntry
	Turn       *Turn // Subagent: the child's turn
}

// Tool is a tool call as its updates left it.
type Tool struct {
	ID     string
	Kind   string // ACP tool kind: read, edit, execute, think, …
	Title  string
	Status string
	Input  string // the raw input, compact JSON
	Output string // the text content of its result (or the raw output)
	// Items are what ran under the call: a subagent's turns, a nested
	// agent's tool calls.
	Items []Item
}

// Asked is a permission request: what it is about, the options offered
// and the one the client chose.
type Asked struct {
	Title   string
	Options []string // option names ("Allow once")
	Answer  string   // the chosen option's name; "": unanswered
}

// PlanEntry is one entry of a plan.
type PlanEntry struct {
	Content, Status, Priority string
}

// Call is one model call: what was asked, how it was answered.
type Call struct {
	N        int    // 1-based, per log
	Log      string // the session log it comes from (session.jsonl, session.1.jsonl, …)
	Request  string // a one-line summary of the request
	Status   string // the HTTP status ("200"), or for a native log the finish reason
	Response string // the answer's text and tool calls
	Detail   string // the full request body or messages, for folding
}
