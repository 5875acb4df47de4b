package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/model"
)

// tool is one tool the model may call.
type tool struct {
	spec  model.ToolSpec
	kind  acp.ToolKind
	asks  bool                                            // asks permission in "ask" mode
	title func(args map[string]any) string                // the client-facing title
	run   func(t *turn, c model.ToolCall) (string, error) // the result text, or an error the model sees
	// exec and render, when set, replace run for a tool whose value is
	// richer than its text: exec is the body (a JSON value, or an error),
	// render turns the value into the result text with today's code (a
	// replayed value is rendered exactly as a live one).
	exec   func(t *turn, c model.ToolCall) (json.RawMessage, error)
	render func(v json.RawMessage) (string, error)
}

// Tool names.
const (
	toolReadFile  = "read_file"
	toolWriteFile = "write_file"
	toolEditFile  = "edit_file"
	toolListDir   = "list_dir"
	toolBash      = "bash"
	toolTodoWrite = "todo_write"
	toolTask      = "task"
	toolFetch     = "fetch"
)

// primaryTools is the toolset of client sessions, in the order the model
// sees it; childTools the read-only toolset of subagents.
var primaryTools, childTools []*tool

func init() {
	primaryTools = []*tool{readFileTool, writeFileTool, editFileTool, listDirTool, bashTool, fetchTool, todoWriteTool, taskTool}
	childTools = []*tool{readFileTool, listDirTool, fetchTool}
}

func (s *session) lookup(name string) *tool {
	for _, tl := range s.tools {
		if tl.spec.Name == name {
			return tl
		}
	}
	return nil
}

// decodeArgs decodes a tool call's JSON arguments ("" counts as {}).
func decodeArgs(raw string, v any) error {
	if strings.TrimSpace(raw) == "" {
		raw = "{}"
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

// runTools runs the tool calls of one assistant message and appends their
// results to the history in call order. It announces every call first
// (tool_call, pending), runs the non-task tools one by one in call order,
// then the task calls as one concurrent batch. It returns false when the
// turn was cancelled; calls left without a result then get a "cancelled"
// error result.
func (t *turn) runTools(calls []model.ToolCall) bool {
	for _, c := range calls {
		t.s.event(evToolCall, toolCallData{Turn: t.n, Step: t.step, CallID: c.ID, Name: c.Name, Arguments: c.Arguments})
		t.s.notify(t.startUpdate(c))
	}
	results := make([]*model.Message, len(calls))
	var tasks []int
	for i, c := range calls {
		if c.Name == toolTask && t.s.lookup(toolTask) != nil {
			tasks = append(tasks, i)
			continue
		}
		if t.stopped() {
			break
		}
		results[i] = t.runTool(c)
	}
	if len(tasks) > 0 && !t.stopped() {
		t.runTasks(calls, tasks, results)
	}
	for i, c := range calls {
		if results[i] == nil {
			results[i] = t.finish(c, "cancelled", true)
		}
		t.s.history = append(t.s.history, *results[i])
	}
	return !t.stopped()
}

// runTool runs one non-task call: permission (in ask mode), in_progress,
// the tool, its result. It returns nil when the turn was cancelled.
func (t *turn) runTool(c model.ToolCall) *model.Message {
	tl := t.s.lookup(c.Name)
	if tl == nil {
		return t.finish(c, fmt.Sprintf("unknown tool %q", c.Name), true)
	}
	if tl.asks {
		allowed, err := t.permit(c, tl)
		switch {
		case t.stopped():
			return nil
		case err != nil:
			return t.finish(c, err.Error(), true)
		case !allowed:
			return t.finish(c, "permission denied by user", true)
		}
	}
	t.s.notify(acp.UpdateToolCall(acp.ToolCallId(c.ID), acp.WithUpdateStatus(acp.ToolCallStatusInProgress)))
	text, err := t.execute(tl, c)
	if t.stopped() {
		return nil
	}
	if err != nil {
		return t.finish(c, err.Error(), true)
	}
	return t.finish(c, text, false)
}

// finish logs a call's result, closes it on the client (completed or
// failed) and returns the tool message for the history.
func (t *turn) finish(c model.ToolCall, content string, isErr bool) *model.Message {
	t.s.event(evToolResult, toolResultData{Turn: t.n, Step: t.step, CallID: c.ID, Content: content, Error: isErr})
	t.s.notify(toolDone(c.ID, content, isErr))
	return &model.Message{Role: "tool", ToolCallID: c.ID, Content: content}
}

// toolDone closes a call on the client: completed or failed, with its
// result as content.
func toolDone(id, content string, isErr bool) acp.SessionUpdate {
	status := acp.ToolCallStatusCompleted
	if isErr {
		status = acp.ToolCallStatusFailed
	}
	return acp.UpdateToolCall(acp.ToolCallId(id),
		acp.WithUpdateStatus(status),
		acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(content))}))
}

// startUpdate is the tool_call announcement of a call: title, kind, raw
// input, status pending.
func (t *turn) startUpdate(c model.ToolCall) acp.SessionUpdate {
	title, kind := c.Name, acp.ToolKindOther
	var args map[string]any
	_ = json.Unmarshal([]byte(c.Arguments), &args)
	if tl := t.s.lookup(c.Name); tl != nil {
		kind = tl.kind
		if args != nil {
			title = tl.title(args)
		}
	}
	var raw any = c.Arguments
	if json.Valid([]byte(c.Arguments)) {
		raw = json.RawMessage(c.Arguments)
	}
	return acp.StartToolCall(acp.ToolCallId(c.ID), title,
		acp.WithStartKind(kind), acp.WithStartStatus(acp.ToolCallStatusPending), acp.WithStartRawInput(raw))
}

// titled returns a title function "<verb> <args[key]>", falling back to
// fallback when the argument is missing.
func titled(verb, key, fallback string) func(map[string]any) string {
	return func(args map[string]any) string {
		if v, ok := args[key].(string); ok && v != "" {
			return verb + " " + v
		}
		return fallback
	}
}
