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
