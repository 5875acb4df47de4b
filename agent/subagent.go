package agent

import (
	"errors"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/model"
)

var taskTool = &tool{
	spec: model.ToolSpec{
		Name: toolTask,
		Description: "Delegate a read-only investigation to a subagent that can read files and list directories. " +
			"Its final answer is the result. Several task calls in one message run concurrently.",
		Parameters: []byte(`{"type":"object","properties":{` +
			`"description":{"type":"string","description":"a short title for the task"},` +
			`"prompt":{"type":"string","description":"the complete instructions for the subagent"}},` +
			`"required":["description","prompt"],"additionalProperties":false}`),
	},
	kind:  acp.ToolKindThink,
	title: titled("Task:", "description", "Task"),
	run: func(*turn, model.ToolCall) (string, error) {
		return "", errors.New("task calls run as a batch") // never called: runTools hands task calls to runTasks
	},
}

// taskArgs are the arguments of a task call.
type taskArgs struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
}

// subagentJob is one task call of a batch: the call's position in the
// message, its arguments, its child session (nil behind a subagent
// boundary: the boundary starts the child, or replays it) and the tool
// result it ends with.
type subagentJob struct {
	i       int
	callID  string
	args    taskArgs
	child   *session
	content string
	isErr   bool
}

// runTasks runs the task calls of one message (indices idx into calls):
// it validates every call first, in call order, logging
// subagent/descriptor for each (and, without a subagent boundary,
// creating its child session, so createdAt order is call order); then
// runs them concurrently; then, after all have ended, records the results
// in call order. Results stay nil when the turn was cancelled.
func (t *turn) runTasks(calls []model.ToolCall, idx []int, results []*model.Message) {
	var jobs []*subagentJob
	for _, i := range idx {
		job, err := t.spawn(calls[i])
		if err != nil {
			job = &subagentJob{content: err.Error(), isErr: true}
		}
		job.i = i
		jobs = append(jobs, job)
	}
	var live []*subagentJob
	for _, j := range jobs {
		if j.callID != "" {
			live = append(live, j)
			t.s.notify(acp.UpdateToolCall(acp.ToolCallId(j.callID), acp.WithUpdateStatus(acp.ToolCallStatusInProgress)))
		}
	}
	if t.s.srv.cfg.Subagents != nil {
		t.runBoundary(live)
	} else {
		t.runChildren(live)
	}
	if t.stopped() {
		return
	}
	for _, j := range jobs {
		results[j.i] = t.finish(calls[j.i], j.content, j.isErr)
	}
}

// runChildren runs each job's child session concurrently, each ending
// with its child's answer.
func (t *turn) runChildren(jobs []*subagentJob) {
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			out := j.child.runTurn(t.ctx, nil, []acp.ContentBlock{acp.TextBlock(j.args.Prompt)})
			if err := j.child.log.Close(); err != nil {
				t.s.srv.diag("close log of session %s: %v", j.child.id, err)
			}
			j.content, j.isErr = out.taskResult()
		})
	}
	wg.Wait()
}

// spawn validates a task call and, without a subagent boundary, creates
// its child session.
func (t *turn) spawn(c model.ToolCall) (*subagentJob, error) {
	var a taskArgs
	if err := decodeArgs(c.Arguments, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return nil, errors.New("prompt is required")
	}
	job := &subagentJob{callID: c.ID, args: a}
	if t.s.srv.cfg.Subagents != nil {
		t.s.event(evSubagent, subagentData{Turn: t.n, CallID: c.ID, Cassette: true})
		return job, nil
	}
	child, err := t.s.srv.createSession(t.childSpec(c.ID))
	if err != nil {
		return nil, err
	}
	t.s.event(evSubagent, subagentData{Turn: t.n, CallID: c.ID, ChildSession: child.id})
	job.child = child
	return job, nil
}

// childSpec is the session a task call starts.
func (t *turn) childSpec(callID string) sessionSpec {
	return sessionSpec{cwd: t.s.cwd, parent: t.s, spawnedBy: callID, depth: t.s.depth + 1}
}

// taskResult is the task's tool result: the child's final text, or an
// error when its turn failed.
func (out turnOutcome) taskResult() (string, bool) {
	switch out.reason.Kind {
	case endError:
		return taskFailed(out.reason.Message), true
	case endAborted:
		return "cancelled", true
	}
	return answer(out.text), false
}

// taskFailed is the tool result of a child whose turn failed.
func taskFailed(msg string) string { return "subagent failed: " + msg }

// answer is the tool result of a child that answered text.
func answer(text string) string {
	if strings.TrimSpace(text) == "" {
		return "(the subagent gave no answer)"
	}
	return text
}
