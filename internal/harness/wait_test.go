package harness_test

import (
	"strings"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/testagents/fakeagent"
)

// TestSlowStartPassesWithDefaults: the default waits hold a slow start. A
// Node agent's start takes over 10 s on a busy 2-core machine, so a step
// waits at least 15 s and each stage of shutdown at least 10 s by default;
// and a run that sets neither (StepTimeout and Grace 0) gets them: an
// agent that answers initialize after more than a second, longer than any
// other wait of the start, passes.
func TestSlowStartPassesWithDefaults(t *testing.T) {
	if harness.DefaultStepTimeout < 15*time.Second || harness.DefaultGrace < 10*time.Second {
		t.Errorf("defaults: %s a step, %s a grace; want at least 15 s and 10 s", harness.DefaultStepTimeout, harness.DefaultGrace)
	}
	t.Parallel()
	dir := scenario{
		script: fakeagent.Script{Initialize: []fakeagent.Action{{SleepMs: 1500}}},
		input:  input(t, []map[string]any{op("initialize"), op("newSession")}, nil),
	}.write(t)
	if _, err := run(t, dir, func(c *harness.Config) { c.StepTimeout, c.Grace = 0, 0 }); err != nil {
		t.Fatalf("a 1.5 s start failed with the default waits (%s a step): %v", harness.DefaultStepTimeout, err)
	}
}

// TestTimeoutNamesTheSetting: a step that times out says which setting
// gave it its time, so the user knows what to change.
func TestTimeoutNamesTheSetting(t *testing.T) {
	t.Parallel()
	never := fakeagent.Script{Initialize: []fakeagent.Action{{NoReply: true}}}
	for _, tc := range []struct {
		name, want string
		step       map[string]any
	}{
		{"the run's", "timed out after 300ms waiting for the initialize response (the run's wait for a step: agent.timeout in acpsnap.yml, -timeout, or timeoutMs on the step)", op("initialize")},
		{"the step's", "timed out after 200ms waiting for the initialize response (the step's timeoutMs)", op("initialize", "timeoutMs", 200)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := scenario{script: never, input: input(t, []map[string]any{tc.step}, nil)}.write(t)
			_, err := run(t, dir, func(c *harness.Config) { c.StepTimeout = 300 * time.Millisecond })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v\nwant it to contain %q", err, tc.want)
			}
		})
	}
}
