package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	toolcassette "github.com/acpsnap/acpsnap/cassette/tool"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/cassette/subagent"
)

// The names of the errors a task child ends with behind a subagent
// boundary (subagent.RecordedError.Name), so that a replayed error renders
// as the live one did.
const (
	// errStart: the child session could not be created.
	errStart = "StartError"
	// errTurn: the child's turn failed (its turn/end reason is error).
	errTurn = "TurnError"
)

// cwdToken is the parent's cwd as the parent-context fingerprint sees it:
// the token normalization writes for it, never the live path.
const cwdToken = "{{cwd}}"

// replayer is a boundary that never runs a child: *subagent.Player.
type replayer interface{ Unconsumed() []string }

// boundaryCall is one task call of a batch on its way through
// Config.Subagents.
type boundaryCall struct {
	job   *subagentJob
	req   subagent.Request
	group string // the call's occurrence group (both fingerprints); "": unknown

	// wait is closed before this call may go to the boundary: the
	// previous call's admitted when recording, the previous call of the
	// same group's returned when replaying (nil: none).
	wait     <-chan struct{}
	prev     *boundaryCall // the previous call of the batch (nil for the first)
	last     *boundaryCall // the last call of the batch
	admitted chan struct{} // the boundary admitted the call (or returned)
	returned chan struct{} // the boundary returned
	once     sync.Once
}

func (c *boundaryCall) admit() { c.once.Do(func() { close(c.admitted) }) }

// runBoundary runs the jobs through Config.Subagents, concurrently, each
// ending with the tool result the outcome renders to.
//
// So that a recording is the same every time, a Recorder admits the
// calls in call order, and their children end in call order once every
// call of the batch was admitted: admissions, occurrences and frames then
// follow the message, not the scheduler. A Player never runs a child, so
// there only identical requests (one occurrence group) wait for each
// other, taking their occurrences in call order; the others end as their
// recorded timing says, in any order.
func (t *turn) runBoundary(jobs []*subagentJob) {
	b := t.s.srv.cfg.Subagents
	_, replaying := b.(replayer)
	parent := t.parentView()
	calls := make([]*boundaryCall, len(jobs))
	lastOf := map[string]*boundaryCall{}
	for k, j := range jobs {
		c := &boundaryCall{job: j, req: taskRequest(j.args, t.s.srv.cfg.Paths), admitted: make(chan struct{}), returned: make(chan struct{})}
		c.group = groupOf(parent, c.req)
		if k > 0 {
			c.prev = calls[k-1]
		}
		switch {
		case !replaying && c.prev != nil:
			c.wait = c.prev.admitted
		case replaying && c.group != "" && lastOf[c.group] != nil:
			c.wait = lastOf[c.group].returned
		}
		lastOf[c.group] = c
		calls[k] = c
	}
	var wg sync.WaitGroup
	for _, c := range calls {
		c.last = calls[len(calls)-1]
		wg.Go(func() {
			if c.wait != nil {
				<-c.wait
			}
			res, err := b.Call(t.ctx, parent, c.req, t.child(c))
			c.admit()
			close(c.returned)
			var miss *subagent.MismatchError
			if errors.As(err, &miss) { // metadata only: say why on stderr too
				t.s.srv.diag("session %s: task call %s: %v", t.s.id, c.job.callID, miss)
			}
			c.job.content, c.job.isErr = rendered(res, err, t.s.srv.cfg.Paths)
		})
	}
	wg.Wait()
}

// child is the subagent.Child of a recorded call: a child session without
// a log of its own (the cassette is its record) that runs one turn.
func (t *turn) child(c *boundaryCall) subagent.Child {
	return func(ctx context.Context, run *subagent.Run) (subagent.Result, error) {
		defer c.settle()
		spec := t.childSpec(c.job.callID)
		spec.detached, spec.key = true, run.Key
		child, err := t.s.srv.createSession(spec)
		if err != nil {
			c.admit()
			return subagent.Result{}, &subagent.RecordedError{Name: errStart, Message: err.Error()}
		}
		run.Started()
		c.admit()
		return outcome(ctx, child.runTurn(ctx, nil, []acp.ContentBlock{acp.TextBlock(c.job.args.Prompt)}), t.s.srv.cfg.Paths)
	}
}

// settle holds a recorded child's end until every call of the batch was
// admitted and the previous call returned (see runBoundary).
func (c *boundaryCall) settle() {
	<-c.last.admitted
	if c.prev != nil {
		<-c.prev.returned
	}
}

// outcome is a child turn's end as the boundary records it: texts with
// the run's folders as tokens (paths nil: as given).
func outcome(ctx context.Context, out turnOutcome, paths *toolcassette.Paths) (subagent.Result, error) {
	switch out.reason.Kind {
	case endError:
		return subagent.Result{}, &subagent.RecordedError{Name: errTurn, Message: scrubPaths(paths, out.reason.Message), Code: out.reason.Code}
	case endAborted:
		if out.reason.By == "disposed" {
			return subagent.Result{}, subagent.ErrDisposed
		}
		return subagent.Result{}, fmt.Errorf("subagent cancelled: %w", context.Cause(ctx))
	}
	text, _ := json.Marshal(scrubPaths(paths, out.text))
	return subagent.Result{Output: text, StopReason: string(out.stop)}, nil
}

// scrubPaths and expandPaths apply Config.Paths to a text that crosses
// the subagent boundary: tokens into the cassette, today's folders out.
func scrubPaths(p *toolcassette.Paths, s string) string {
	if p == nil {
		return s
	}
	return p.Scrub(s)
}

func expandPaths(p *toolcassette.Paths, s string) string {
	if p == nil {
		return s
	}
	return p.Expand(s)
}

// rendered is the tool result an outcome shows, the same text a child
// run without the boundary shows (runChildren), with today's folders. A
// miss shows the cassette's diagnostic: metadata only, never a prompt or
// a result.
func rendered(res subagent.Result, err error, paths *toolcassette.Paths) (string, bool) {
	var re *subagent.RecordedError
	switch {
	case errors.As(err, &re) && re.Name == errTurn:
		return taskFailed(expandPaths(paths, re.Message)), true
	case errors.As(err, &re) && re.Name == "AbortError":
		return "cancelled", true
	case errors.As(err, &re):
		return re.Message, true
	case err != nil:
		return err.Error(), true
	case res.StopReason == subagent.StopAborted:
		return "cancelled", true
	}
	var text string
	if json.Unmarshal(res.Output, &text) != nil {
		text = string(res.Output)
	}
	return answer(expandPaths(paths, text)), false
}

// parentView is what a child's identity takes of its parent session: the
// agent's options, the cwd token, depth, permission mode and tool set.
// Children start from their prompt alone (they inherit no context).
func (t *turn) parentView() subagent.Parent {
	cfg := t.s.srv.cfg
	return subagent.Parent{
		Path:           t.s.key,
		Options:        map[string]any{"model": cfg.Model, "maxSteps": cfg.MaxSteps},
		Cwd:            cwdToken,
		Depth:          t.s.depth,
		PermissionMode: t.s.permissionMode(),
		Tools:          toolNames(t.s.tools),
	}
}

// taskRequest is a task call as the boundary identifies it: label "task",
// the prompt and the description (its options) with the run's folders as
// tokens, and the child's tools.
func taskRequest(a taskArgs, paths *toolcassette.Paths) subagent.Request {
	return subagent.Request{Label: toolTask, Prompt: scrubPaths(paths, a.Prompt),
		Options: map[string]any{"description": scrubPaths(paths, a.Description)}, ToolFilter: toolNames(childTools)}
}

// groupOf is the call's occurrence group: both fingerprints ("" when one
// cannot be taken; the boundary then refuses the call itself).
func groupOf(p subagent.Parent, r subagent.Request) string {
	c, err := subagent.ContextFingerprint(p)
	if err != nil {
		return ""
	}
	q, err := subagent.RequestFingerprint(r)
	if err != nil {
		return ""
	}
	return c + " " + q
}

func toolNames(ts []*tool) []string {
	names := make([]string, len(ts))
	for i, tl := range ts {
		names[i] = tl.spec.Name
	}
	return names
}
