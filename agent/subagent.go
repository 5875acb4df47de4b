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

// subagentJob is one task call of a batch: the call's position in the
// message, its prompt and its child session.
type subagentJob struct {
	i      int
	prompt string
	child  *session
	out    turnOutcome
}

// runTasks runs the task calls of one message (indices idx into calls):
// it creates every child session first, in call order (so createdAt order
// is call order), logging subagent/descriptor for each; then runs their
// turns concurrently; then, after all have ended, records the results in
// call order. Results stay nil when the turn was cancelled.
func (t *turn) runTasks(calls []model.ToolCall, idx []int, results []*model.Message) {
	type early struct {
		content string
		isErr   bool
	}
	earlies := map[int]early{}
	var jobs []*subagentJob
	for _, i := range idx {
		job, err := t.spawn(calls[i])
		if err != nil {
			earlies[i] = early{err.Error(), true}
			continue
		}
		job.i = i
		jobs = append(jobs, job)
	}
	for _, j := range jobs {
		t.s.notify(acp.UpdateToolCall(acp.ToolCallId(calls[j.i].ID), acp.WithUpdateStatus(acp.ToolCallStatusInProgress)))
	}
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Go(func() {
			j.out = j.child.runTurn(t.ctx, nil, []acp.ContentBlock{acp.TextBlock(j.prompt)})
			if err := j.child.log.Close(); err != nil {
				t.s.srv.diag("close log of session %s: %v", j.child.id, err)
			}
		})
	}
	wg.Wait()
	if t.stopped() {
		return
	}
	for _, j := range jobs {
		content, isErr := j.out.taskResult()
		earlies[j.i] = early{content, isErr}
	}
	for _, i := range idx {
		results[i] = t.finish(calls[i], earlies[i].content, earlies[i].isErr)
	}
}

// spawn validates a task call and creates its child session.
func (t *turn) spawn(c model.ToolCall) (*subagentJob, error) {
	var a struct {
		Description string `json:"description"`
		Prompt      string `json:"prompt"`
	}
	if err := decodeArgs(c.Arguments, &a); err != nil {
		return nil, err
	}
	if strings.TrimSpace(a.Prompt) == "" {
		return nil, errors.New("prompt is required")
	}
	child, err := t.s.srv.createSession(sessionSpec{cwd: t.s.cwd, parent: t.s, spawnedBy: c.ID, depth: t.s.depth + 1})
	if err != nil {
		return nil, err
	}
	t.s.event(evSubagent, subagentData{Turn: t.n, CallID: c.ID, ChildSession: child.id})
	return &subagentJob{prompt: a.Prompt, child: child}, nil
}

// taskResult is the task's tool result: the child's final text, or an
// error when its turn failed.
func (out turnOutcome) taskResult() (string, bool) {
	switch out.reason.Kind {
	case endError:
		return "subagent failed: " + out.reason.Message, true
	case endAborted:
		return "cancelled", true
	}
	if strings.TrimSpace(out.text) == "" {
		return "(the subagent gave no answer)", false
	}
	return out.text, false
}
