package agent

import (
	"context"
	"errors"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/model"
)

// errAborted reports that the turn's context ended; the turn's cause says
// who ended it.
var errAborted = errors.New("turn aborted")

// turn is one prompt's run through the loop of model calls and tools.
type turn struct {
	s        *session
	ctx      context.Context
	n        int    // turn number, from 1 per session
	step     int    // step number, from 1 per turn
	lastText string // the text of the latest assistant message
	local    bool   // the running tool is selected by the tool cassette: no client fs or terminal
}

// turnOutcome is how a turn ended: the ACP stop reason, the logged reason,
// the JSON-RPC error of a failed turn, and the final assistant text.
type turnOutcome struct {
	stop   acp.StopReason
	reason endReason
	err    *acp.RequestError
	text   string
}

// runTurn runs one turn: turn/start, user/message, steps, turn/end. Turns
// of one session run one at a time; cancel is what session/cancel calls.
func (s *session) runTurn(ctx context.Context, cancel context.CancelCauseFunc, content []acp.ContentBlock) turnOutcome {
	s.turnMu.Lock()
	defer s.turnMu.Unlock()
	s.setCancel(cancel)
	defer s.setCancel(nil)
	s.turns++
	t := &turn{s: s, ctx: ctx, n: s.turns}
	s.event(evTurnStart, turnData{Turn: t.n})
	s.event(evUserMessage, userMessageData{Turn: t.n, ID: s.srv.cfg.NewID(), Content: content})
	s.history = append(s.history, model.Message{Role: "user", Content: promptText(content)})
	out := t.loop()
	s.event(evTurnEnd, turnEndData{Turn: t.n, Reason: out.reason})
	return out
}

// loop runs steps until one ends the turn or MaxSteps model calls are spent.
func (t *turn) loop() turnOutcome {
	for t.step = 1; t.step <= t.s.srv.cfg.MaxSteps; t.step++ {
		if t.stopped() {
			return t.aborted()
		}
		t.s.event(evStepStart, stepData{Turn: t.n, Step: t.step})
		out, done := t.runStep()
		t.s.event(evStepEnd, stepData{Turn: t.n, Step: t.step})
		if done {
			return out
		}
	}
	return turnOutcome{stop: acp.StopReasonMaxTurnRequests, reason: endReason{Kind: endMaxSteps}, text: t.lastText}
}

// runStep is one model call and the tools it asks for. done reports that
// the turn ends with out.
func (t *turn) runStep() (out turnOutcome, done bool) {
	req := t.request()
	t.s.event(evRequestHeader, requestHeaderData{Turn: t.n, Step: t.step, Model: req.Model, System: req.System, Tools: req.Tools})
	r, err := t.callModel(req)
	if err != nil {
		return t.failed(err), true
	}
	msg := r.message()
	for i := range msg.ToolCalls {
		if msg.ToolCalls[i].ID == "" {
			msg.ToolCalls[i].ID = "call_" + t.s.srv.cfg.NewID()
		}
	}
	t.s.event(evAssistantMessage, assistantMessageData{
		Turn: t.n, Step: t.step, ID: t.s.srv.cfg.NewID(),
		Text: msg.Content, Reasoning: msg.Reasoning, ToolCalls: msg.ToolCalls,
	})
	t.s.history = append(t.s.history, msg)
	t.lastText = msg.Content
	switch {
	case r.finish.Reason == model.FinishMaxTokens:
		return turnOutcome{stop: acp.StopReasonMaxTokens, reason: endReason{Kind: endMaxTokens}, text: msg.Content}, true
	case len(msg.ToolCalls) == 0:
		return turnOutcome{stop: acp.StopReasonEndTurn, reason: endReason{Kind: endCompleted}, text: msg.Content}, true
	}
	if !t.runTools(msg.ToolCalls) {
		return t.aborted(), true
	}
	return turnOutcome{}, false
}

func (t *turn) request() model.Request {
	specs := make([]model.ToolSpec, len(t.s.tools))
	for i, tl := range t.s.tools {
		specs[i] = tl.spec
	}
	return model.Request{
		SessionID: t.s.id, SpawnedBy: t.s.spawnedBy, Cwd: t.s.cwd,
		Model: t.s.modelName(), System: t.s.system,
		Messages: append([]model.Message(nil), t.s.history...), Tools: specs,
	}
}

// callModel streams one model call, retrying once, within the same step,
// after a retryable provider error (RATE_LIMIT, UNAVAILABLE).
func (t *turn) callModel(req model.Request) (*reply, error) {
	r, err := t.stream(req)
	var pe *model.ProviderError
	if err != nil && t.ctx.Err() == nil && errors.As(err, &pe) && pe.Retryable() {
		t.s.srv.diag("session %s: turn %d step %d: %v; retrying once", t.s.id, t.n, t.step, pe)
		if !t.pause(t.s.srv.cfg.RetryDelay) {
			return r, err
		}
		r, err = t.stream(req)
	}
	return r, err
}

// pause waits d, or until the turn is cancelled; it reports whether the
// whole pause passed.
func (t *turn) pause(d time.Duration) bool {
	if d <= 0 {
		return true
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-t.ctx.Done():
		return false
	}
}

// stream runs one attempt. Each chunk is logged and forwarded as it
// arrives. A failed attempt ends with a logged finish{reason:error} chunk
// carrying the error's message and code, and returns a ProviderError; a
// model-side error finish (already logged) returns one without a code.
func (t *turn) stream(req model.Request) (*reply, error) {
	r := &reply{}
	err := t.s.srv.cfg.Provider.Stream(t.ctx, req, func(c model.Chunk) error {
		if err := t.ctx.Err(); err != nil {
			return err
		}
		r.add(c)
		t.s.event(evAssistantChunk, chunkData{Turn: t.n, Step: t.step, Chunk: c})
		t.forward(c)
		return nil
	})
	if t.ctx.Err() != nil {
		return nil, errAborted
	}
	var pe *model.ProviderError
	switch {
	case err != nil:
		if !errors.As(err, &pe) {
			pe = &model.ProviderError{Code: "INTERNAL", Message: err.Error()}
		}
	case r.finish == nil:
		pe = &model.ProviderError{Code: "STREAM", Message: "the model stream ended without a finish chunk"}
	case r.finish.Reason == model.FinishError:
		msg := r.finish.Error
		if msg == "" {
			msg = "the model finished with an error"
		}
		return nil, &model.ProviderError{Code: r.finish.Code, Message: msg}
	default:
		return r, nil
	}
	fin := model.Chunk{Type: model.Finish, Reason: model.FinishError, Error: pe.Message, Code: pe.Code}
	t.s.event(evAssistantChunk, chunkData{Turn: t.n, Step: t.step, Chunk: fin})
	return nil, pe
}

// forward streams text and reasoning to the client as they arrive.
func (t *turn) forward(c model.Chunk) {
	switch c.Type {
	case model.TextDelta:
		t.s.notify(acp.UpdateAgentMessageText(c.Text))
	case model.ReasoningDelta:
		t.s.notify(acp.UpdateAgentThoughtText(c.Text))
	}
}

// failed is the outcome of a step whose model call failed: aborted when
// the context ended, else error{message, code}, answered to the client as
// a JSON-RPC internal error with the message and code in its data.
func (t *turn) failed(err error) turnOutcome {
	if errors.Is(err, errAborted) || t.stopped() {
		return t.aborted()
	}
	var pe *model.ProviderError
	if !errors.As(err, &pe) {
		pe = &model.ProviderError{Code: "INTERNAL", Message: err.Error()}
	}
	data := map[string]any{"message": pe.Message}
	if pe.Code != "" {
		data["code"] = pe.Code
	}
	return turnOutcome{
		reason: endReason{Kind: endError, Message: pe.Message, Code: pe.Code},
		err:    acp.NewInternalError(data),
		text:   t.lastText,
	}
}

// stopped reports whether the turn must stop: its context ended, or the
// client is gone. (The second is checked too because a request to a
// departed client fails the instant the connection closes, a moment before
// the turn's context sees it.)
func (t *turn) stopped() bool {
	if t.ctx.Err() != nil {
		return true
	}
	select {
	case <-t.s.srv.conn.Done():
		return true
	default:
		return false
	}
}

// aborted is the outcome of a cancelled turn: by "user" after
// session/cancel or $/cancel_request (the SDK cancels the prompt's context
// plainly, or the session's cancel function is called with errUserCancel),
// by "disposed" when the client went away or the agent shuts down.
func (t *turn) aborted() turnOutcome {
	by := "disposed"
	if cause := context.Cause(t.ctx); errors.Is(cause, errUserCancel) || errors.Is(cause, context.Canceled) {
		by = "user"
	}
	return turnOutcome{stop: acp.StopReasonCancelled, reason: endReason{Kind: endAborted, By: by}, text: t.lastText}
}
