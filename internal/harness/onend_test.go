package harness_test

import (
	"errors"
	"os"
	"testing"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/testagents/fakeagent"
)

// TestRunOnEnd: OnEnd sees the cwd the agent left, after it has exited and
// before the roots go; its error fails the run; a failed run skips it.
func TestRunOnEnd(t *testing.T) {
	sc := scenario{
		script: fakeagent.Script{Prompts: [][]fakeagent.Action{{{TurnStart: true}, {WriteFile: "made-by-agent"}, {TurnEnd: "completed"}}}},
		input:  input(t, []map[string]any{op("initialize"), op("newSession"), op("prompt", "text", "write")}, nil),
	}
	dir := sc.write(t)
	var saw []string
	_, err := run(t, dir, func(c *harness.Config) {
		c.OnEnd = func(cwd string) error {
			entries, err := os.ReadDir(cwd)
			for _, e := range entries {
				saw = append(saw, e.Name())
			}
			return err
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(saw) != 1 || saw[0] != "made-by-agent" {
		t.Errorf("OnEnd saw %q, want the file the agent wrote", saw)
	}

	boom := errors.New("workspace differs")
	_, err = run(t, dir, func(c *harness.Config) { c.OnEnd = func(string) error { return boom } })
	if !errors.Is(err, boom) {
		t.Errorf("Run = %v, want OnEnd's error", err)
	}

	called := false
	bad := scenario{input: input(t, []map[string]any{op("initialize"), op("prompt", "text", "no session")}, nil)}
	_, err = run(t, bad.write(t), func(c *harness.Config) { c.OnEnd = func(string) error { called = true; return nil } })
	if err == nil || called {
		t.Errorf("a failed run: err = %v, OnEnd called = %v; want an error and no call", err, called)
	}
}

// TestRunOnWire: OnWire sees the wire as the last step ends, then, once
// the agent has exited, the Result's own, which grew by nothing here (the
// agent writes nothing while it exits); a run whose steps fail gets no
// call.
func TestRunOnWire(t *testing.T) {
	sc := scenario{
		script: fakeagent.Script{Prompts: [][]fakeagent.Action{{{TurnStart: true}, {TurnEnd: "completed"}}}},
		input:  input(t, []map[string]any{op("initialize"), op("newSession"), op("prompt", "text", "hi")}, nil),
	}
	type call struct {
		stdout, sent, incarnations int
		final                      bool
	}
	var calls []call
	res, err := run(t, sc.write(t), func(c *harness.Config) {
		c.OnWire = func(stdout [][]byte, sent []harness.Sent, incarnations []int, final bool) {
			calls = append(calls, call{len(stdout), len(sent), len(incarnations), final})
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := call{len(res.Stdout), len(res.Sent), len(res.Incarnations), false}
	if len(calls) != 2 || calls[0] != want || calls[1] != (call{want.stdout, want.sent, want.incarnations, true}) || want.stdout == 0 || want.sent != 3 {
		t.Errorf("OnWire calls %+v, want two of the Result's wire %+v, the last final", calls, want)
	}

	calls = nil
	bad := scenario{input: input(t, []map[string]any{op("initialize"), op("prompt", "text", "no session")}, nil)}
	if _, err := run(t, bad.write(t), func(c *harness.Config) {
		c.OnWire = func([][]byte, []harness.Sent, []int, bool) { calls = append(calls, call{}) }
	}); err == nil || len(calls) > 0 {
		t.Errorf("a failed run: err = %v, OnWire calls %d; want an error and none", err, len(calls))
	}
}
