package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	toolcassette "github.com/acpsnap/acpsnap/cassette/tool"
	"github.com/acpsnap/acpsnap/model"
)

// ToolCassette is the tool cassette the agent wraps its tool execution with
// (package cassette/tool, docs/cassettes.md): the selected calls are
// recorded at the tool-body boundary, or served without running their
// bodies. The caller opens it, and closes it after Serve returns: Close's
// error (a mismatch, an extra call, an unconsumed record, an unfinished
// recording) fails the run.
type ToolCassette struct {
	// Cassette is a *tool.Recorder or a *tool.Player. Required.
	Cassette toolcassette.Cassette
	// Include is the selection Cassette was opened with. Required: a
	// selected tool that would talk to the client (bash in a client
	// terminal, file tools through fs/*) runs its local implementation
	// instead, so that the body the cassette stands for is the whole tool.
	Include *toolcassette.Include
}

// selected reports whether the cassette records or replays the tool name.
func (tc *ToolCassette) selected(name string) bool {
	return tc != nil && tc.Include != nil && tc.Include.Match(name)
}

// execute runs one call's body and renders its value with today's code.
// With a tool cassette the body goes through it: in replay a selected
// call's body never runs and the recorded value is rendered exactly as a
// live one. A call whose arguments are not JSON never reaches the
// cassette: it fails decoding, in both modes, before any body would run.
// Nor does a call of a child behind the subagent cassette (a session
// without a path): its calls are part of the child's recorded outcome,
// which replay serves without running the child.
func (t *turn) execute(tl *tool, c model.ToolCall) (string, error) {
	exec, render := tl.bodies()
	tc := t.s.srv.cfg.Tools
	blank := strings.TrimSpace(c.Arguments) == ""
	if tc == nil || t.s.path == "" || (!blank && !json.Valid([]byte(c.Arguments))) {
		v, err := exec(t, c)
		if err != nil {
			return "", err
		}
		return render(v)
	}
	t.local = tc.selected(c.Name)
	defer func() { t.local = false }()
	v, err := tc.Cassette.Call(t.ctx, t.s.path, c.Name, json.RawMessage(c.Arguments), func(context.Context) (json.RawMessage, error) {
		return exec(t, c)
	})
	if err != nil {
		return "", err
	}
	return render(v)
}

// bodies returns the tool's body (what the cassette records: a JSON value
// or an error) and its rendering (the result text the model and the client
// see). A tool with only run records its result text as a JSON string.
func (tl *tool) bodies() (func(*turn, model.ToolCall) (json.RawMessage, error), func(json.RawMessage) (string, error)) {
	if tl.exec != nil {
		return tl.exec, tl.render
	}
	exec := func(t *turn, c model.ToolCall) (json.RawMessage, error) {
		text, err := tl.run(t, c)
		if err != nil {
			return nil, err
		}
		return json.Marshal(text)
	}
	return exec, renderText
}

// renderText renders a value recorded as a JSON string: the string.
func renderText(v json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", errors.New("tool cassette: the recorded value is not a string (record again)")
	}
	return s, nil
}
