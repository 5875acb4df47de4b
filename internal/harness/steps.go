package harness

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/internal/harness/proc"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// runSteps runs the steps in order and stops at the first failure.
func (r *run) runSteps() error {
	for i, s := range r.in.Steps {
		d := deadline{total: r.cfg.StepTimeout, by: "the run's wait for a step: agent.timeout in acpsnap.yml, -timeout, or timeoutMs on the step"}
		if s.TimeoutMs > 0 {
			d.total, d.by = time.Duration(s.TimeoutMs)*time.Millisecond, "the step's timeoutMs"
		}
		start := time.Now()
		d.at = start.Add(d.total)
		err := r.step(s, d)
		r.timing = append(r.timing, StepTiming{Op: s.Op, Start: start, Duration: time.Since(start), Failed: err != nil})
		if err != nil {
			return &stepError{i + 1, s.Line, s.Op, err}
		}
	}
	return nil
}

// stepError says which step failed. It formats lazily, so that a cause
// like goneError can describe the agent's end, known only after shutdown.
type stepError struct {
	n, line int
	op      string
	err     error
}

func (e *stepError) Error() string {
	return fmt.Sprintf("%s:%d: step %d (%s): %v", scenario.InputFile, e.line, e.n, e.op, e.err)
}
func (e *stepError) Unwrap() error { return e.err }

// deadline is a step's time budget, and the setting that gave it.
type deadline struct {
	at    time.Time
	total time.Duration
	by    string
}

// step dispatches one op of docs/format.md, "Client script".
func (r *run) step(s scenario.Step, d deadline) error {
	switch s.Op {
	case scenario.OpInitialize:
		return r.initialize(d)
	case scenario.OpNewSession:
		return r.newSession(d, s.MCPServers)
	case scenario.OpNewSessionExpectError:
		return r.newSessionExpectError(d, s.Params)
	case scenario.OpPrompt, scenario.OpPromptContent:
		blocks, err := r.blocks(s)
		if err != nil {
			return err
		}
		return r.prompt(d, blocks, false)
	case scenario.OpPromptExpectError:
		return r.prompt(d, []acp.ContentBlock{acp.TextBlock(r.expand(s.Text))}, true)
	case scenario.OpPromptAndCancel:
		return r.promptAndCancel(d, s)
	case scenario.OpCancel:
		return r.cancel(d, s.WaitForFile)
	case scenario.OpWaitForFile:
		return r.waitForFile(d, s.Path)
	case scenario.OpWaitForTurnStart:
		return r.waitForTurn(d, "turn/start", cmp.Or(s.MinimumTurn, 1))
	case scenario.OpWaitForTurnEnd:
		return r.waitForTurn(d, "turn/end", cmp.Or(s.MinimumTurn, 1))
	case scenario.OpWaitForSubagentTurnEnd:
		return r.waitForChild(d, cmp.Or(s.Child, 1), cmp.Or(s.MinimumTurn, 1))
	case scenario.OpWaitForUpdate:
		return r.waitForUpdate(d, s.Update)
	case scenario.OpRequest, scenario.OpRequestExpectError:
		return r.request(d, s, s.Op == scenario.OpRequestExpectError)
	case scenario.OpNotify:
		return r.notify(s)
	case scenario.OpRestartAgent:
		return r.restart()
	}
	if op, ok := sessionOps[s.Op]; ok {
		return op(r, d, s)
	}
	return fmt.Errorf("unknown op %q", s.Op)
}

func (r *run) initialize(d deadline) error {
	var caps acp.ClientCapabilities
	if r.in.ClientCapabilities != nil {
		if err := json.Unmarshal(r.in.ClientCapabilities, &caps); err != nil {
			return fmt.Errorf("clientCapabilities: %w", err)
		}
	}
	req := acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersionNumber, ClientCapabilities: caps,
		ClientInfo: &acp.Implementation{Name: "acpsnap", Version: "1"}}
	resp, err := await(r, d, "initialize", func() (acp.InitializeResponse, error) {
		return r.conn.Initialize(r.bg(), req)
	})
	if err == nil && resp.AgentInfo != nil {
		r.agentInfo = sessionlog.AgentInfo{Name: resp.AgentInfo.Name, Version: resp.AgentInfo.Version}
	}
	return r.explain("initialize", err)
}

func (r *run) newSession(d deadline, servers []scenario.MCPServer) error {
	proxies, err := r.mcp.Servers(servers, r.expand)
	if err != nil {
		return err
	}
	req := acp.NewSessionRequest{Cwd: r.roots.Cwd, McpServers: proxies}
	resp, err := await(r, d, "session/new", func() (acp.NewSessionResponse, error) {
		return r.conn.NewSession(r.bg(), req)
	})
	if err != nil {
		return r.explain("session/new", err)
	}
	r.addSession(string(resp.SessionId))
	if r.model != nil {
		r.model.Identify(string(resp.SessionId))
	}
	if r.cfg.Ready != "" {
		if err := r.waitForUpdate(d, r.cfg.Ready); err != nil {
			return fmt.Errorf("ready (acpsnap.yml ready.update): %w", err)
		}
	}
	return nil
}

// newSessionExpectError sends session/new with params laid over the
// defaults ({"cwd": <cwd>, "mcpServers": []}); it must be rejected.
func (r *run) newSessionExpectError(d deadline, params json.RawMessage) error {
	fields := map[string]json.RawMessage{"mcpServers": json.RawMessage("[]")}
	fields["cwd"], _ = json.Marshal(r.roots.Cwd)
	if params != nil {
		var over map[string]json.RawMessage
		b, err := r.expandJSON(params)
		if err != nil {
			return fmt.Errorf("params: %w", err)
		}
		if err := json.Unmarshal(b, &over); err != nil {
			return fmt.Errorf("params: %w", err)
		}
		for k, v := range over {
			fields[k] = v
		}
	}
	b, _ := json.Marshal(fields)
	var req acp.NewSessionRequest
	if err := json.Unmarshal(b, &req); err != nil {
		return fmt.Errorf("params do not fit session/new: %w", err)
	}
	resp, err := await(r, d, "session/new", func() (acp.NewSessionResponse, error) {
		return r.conn.NewSession(r.bg(), req)
	})
	if err == nil {
		return fmt.Errorf("session/new succeeded (session %s), want a JSON-RPC error", resp.SessionId)
	}
	return r.expectRPCError("session/new", err)
}

// expectRPCError accepts a JSON-RPC error from the agent and nothing else.
func (r *run) expectRPCError(method string, err error) error {
	var re *acp.RequestError
	if errors.As(err, &re) && !r.disconnected() {
		return nil
	}
	return r.explain(method, err)
}

func (r *run) blocks(s scenario.Step) ([]acp.ContentBlock, error) {
	if s.Op == scenario.OpPrompt {
		return []acp.ContentBlock{acp.TextBlock(r.expand(s.Text))}, nil
	}
	var blocks []acp.ContentBlock
	b, err := r.expandJSON(s.Content)
	if err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	if err := json.Unmarshal(b, &blocks); err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	return blocks, nil
}

func (r *run) session() (acp.SessionId, error) {
	if len(r.sessions) == 0 {
		return "", errors.New("no session yet (run newSession first)")
	}
	return acp.SessionId(r.sessions[r.current]), nil
}

func (r *run) prompt(d deadline, blocks []acp.ContentBlock, expectError bool) error {
	id, err := r.session()
	if err != nil {
		return err
	}
	resp, err := await(r, d, "session/prompt", func() (acp.PromptResponse, error) {
		return r.conn.Prompt(r.bg(), acp.PromptRequest{SessionId: id, Prompt: blocks})
	})
	if !expectError {
		return r.explain("session/prompt", err)
	}
	if err == nil {
		return fmt.Errorf("session/prompt answered stopReason %q, want a JSON-RPC error", resp.StopReason)
	}
	return r.expectRPCError("session/prompt", err)
}

// promptAndCancel prompts, waits until the turn is under way (the marker
// file, else a durable turn/start beyond the last one), cancels, and waits
// for the prompt's response.
func (r *run) promptAndCancel(d deadline, s scenario.Step) error {
	id, err := r.session()
	if err != nil {
		return err
	}
	before, from := 0, r.agent.LineCount()
	if r.model == nil {
		if before, _, err = r.primaryTurn("turn/start"); err != nil {
			return err
		}
	}
	type answer struct {
		resp acp.PromptResponse
		err  error
	}
	answered := make(chan answer, 1)
	go func() {
		resp, err := r.conn.Prompt(r.bg(), acp.PromptRequest{SessionId: id, Prompt: []acp.ContentBlock{acp.TextBlock(r.expand(s.Text))}})
		answered <- answer{resp, err}
	}()
	early := func() error {
		select {
		case a := <-answered:
			if a.err != nil {
				return r.explain("session/prompt", a.err)
			}
			return fmt.Errorf("session/prompt answered stopReason %q before the cancel point was reached", a.resp.StopReason)
		default:
			return nil
		}
	}
	switch {
	case s.WaitForFile != "":
		err = r.pollFile(d, s.WaitForFile, early)
	case r.model != nil:
		err = r.waitStreaming(d, from, early)
	default:
		err = r.pollTurn(d, "turn/start", before+1, early)
	}
	if err != nil {
		return err
	}
	if err := r.conn.Cancel(r.bg(), acp.CancelNotification{SessionId: id}); err != nil {
		return fmt.Errorf("session/cancel: %w", err)
	}
	_, err = await(r, d, "session/prompt", func() (answer, error) {
		a := <-answered
		return a, a.err
	})
	return r.explain("session/prompt", err)
}

func (r *run) cancel(d deadline, waitForFile string) error {
	id, err := r.session()
	if err != nil {
		return err
	}
	if waitForFile != "" {
		if err := r.pollFile(d, waitForFile, nil); err != nil {
			return err
		}
	}
	if err := r.conn.Cancel(r.bg(), acp.CancelNotification{SessionId: id}); err != nil {
		return fmt.Errorf("session/cancel: %w", err)
	}
	return nil
}

// await runs an SDK call and waits for it within the step's time; the
// call itself is never cancelled (that would put $/cancel_request on the
// wire); it ends when the agent answers or the connection closes.
func await[T any](r *run, d deadline, method string, call func() (T, error)) (T, error) {
	what := "the " + method + " response"
	type result struct {
		v   T
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := call()
		ch <- result{v, err}
	}()
	timer := time.NewTimer(time.Until(d.at))
	defer timer.Stop()
	var zero T
	select {
	case res := <-ch:
		return res.v, res.err
	case <-timer.C:
		return zero, timedOut(d, what)
	case <-r.failed:
		return zero, r.failErr
	case <-r.ctx.Done():
		return zero, r.cancelled(what)
	case <-r.agent.Exited():
		// An answer may still be on its way through the pipe and the SDK;
		// a descendant holding stdout open would keep the SDK waiting.
		select {
		case res := <-ch:
			return res.v, res.err
		case <-time.After(r.cfg.Grace):
			return zero, &goneError{r.agent, method}
		}
	}
}

// explain rewrites a failed call whose cause is the agent going away.
func (r *run) explain(method string, err error) error {
	if err == nil {
		return nil
	}
	var we *waitError
	var ge *goneError
	if errors.As(err, &we) || errors.As(err, &ge) {
		return err
	}
	if f := r.failure(); f != nil { // the cause (a bad stdout line, a too long one) beats its symptom
		return f
	}
	if r.disconnected() {
		return &goneError{r.agent, method}
	}
	return fmt.Errorf("%s: %w", method, err)
}

// goneError is a request the agent never answered because it went away.
// It is formatted when the run reports, after shutdown, so it can say how
// the agent ended.
type goneError struct {
	agent  *proc.Agent
	method string
}

func (e *goneError) Error() string {
	select {
	case <-e.agent.Exited():
		if !e.agent.Signalled() {
			return fmt.Sprintf("agent exited (%s) before answering %s", e.agent.ExitState(), e.method)
		}
	default:
	}
	return fmt.Sprintf("agent closed its stdout before answering %s", e.method)
}

// disconnected reports whether the agent's stdout has ended.
func (r *run) disconnected() bool {
	select {
	case <-r.conn.Done():
		return true
	default:
		return false
	}
}

// bg is the context of SDK calls: never cancelled, see await.
func (r *run) bg() context.Context { return context.Background() }

// expand replaces {{cwd}} in prompt text with the live cwd.
func (r *run) expand(s string) string {
	return strings.ReplaceAll(s, "{{cwd}}", r.roots.Cwd)
}

// expandJSON replaces {{cwd}} inside JSON strings with the live cwd, and
// {{sessionId}} and {{session:N}} with live session ids.
func (r *run) expandJSON(raw json.RawMessage) ([]byte, error) {
	b, _ := json.Marshal(r.roots.Cwd)
	out, err := r.expandSessions(strings.ReplaceAll(string(raw), "{{cwd}}", string(b[1:len(b)-1])))
	return []byte(out), err
}
