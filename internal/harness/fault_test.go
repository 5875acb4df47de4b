package harness_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/testagents/fakeagent"
)

// TestFaultDrills runs misbehaving agents: each run must fail for the
// reason given, say why, and leave no process and no temporary directory
// (run checks both). A drill that must fail at once, not at the step
// timeout, proves it by the error: a step that ran out of time says "timed
// out after", and only the drills that want that may say it (no clock is
// read: the machine is shared).
func TestFaultDrills(t *testing.T) {
	t.Parallel()
	basic := []map[string]any{op("initialize"), op("newSession"), op("prompt", "text", "go")}
	tests := []struct {
		name   string
		script fakeagent.Script
		steps  []map[string]any
		extra  map[string]any
		edit   func(*harness.Config)
		want   []string // substrings of the error
	}{
		{
			name:   "never answers and ignores stdin close and SIGTERM",
			script: fakeagent.Script{Initialize: []fakeagent.Action{{NoReply: true}}, IgnoreEOF: true, IgnoreTerm: true},
			steps:  basic,
			edit:   func(c *harness.Config) { c.StepTimeout = 300 * time.Millisecond },
			want: []string{"step 1 (initialize): timed out after 300ms waiting for the initialize response",
				"agent did not exit within 300ms of stdin closing (killed with SIGKILL after ignoring SIGTERM)"},
		},
		{
			name: "does not exit at stdin close",
			script: fakeagent.Script{IgnoreEOF: true, AtEOF: []fakeagent.Action{{Stderr: "still here"},
				{Report: &agentenv.Report{Fixtures: []agentenv.FixtureReport{}}}}},
			steps: basic,
			want:  []string{"agent did not exit within 300ms of stdin closing (sent SIGTERM)", "agent stderr (last lines):", "still here"},
		},
		{
			name: "ignores stdin close and SIGTERM",
			script: fakeagent.Script{IgnoreEOF: true, IgnoreTerm: true,
				AtEOF: []fakeagent.Action{{Report: &agentenv.Report{Fixtures: []agentenv.FixtureReport{}}}}},
			steps: basic,
			want:  []string{"agent did not exit within 300ms of stdin closing (killed with SIGKILL after ignoring SIGTERM)"},
		},
		{
			name:   "exits with an error on stderr",
			script: fakeagent.Script{Initialize: []fakeagent.Action{{Stderr: "fatal: no model configured"}, {Exit: intp(1)}}},
			steps:  basic,
			want:   []string{"step 1 (initialize): agent exited (exit status 1) before answering initialize", "agent stderr (last lines):", "fatal: no model configured"},
		},
		{
			name:   "prints non-JSON on stdout",
			script: fakeagent.Script{Start: []fakeagent.Action{{Stdout: "hello from the agent"}}, Initialize: []fakeagent.Action{{NoReply: true}}},
			steps:  basic,
			want:   []string{"step 1 (initialize): agent stdout line 1 is not JSON (stdout is protocol only): \"hello from the agent\""},
		},
		{
			name: "prints invalid UTF-8 inside JSON on stdout",
			script: fakeagent.Script{Start: []fakeagent.Action{{StdoutRaw: []byte("{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"a\xffb\"}")}},
				Initialize: []fakeagent.Action{{NoReply: true}}},
			steps: basic,
			want:  []string{`step 1 (initialize): agent stdout line 1 is not valid UTF-8 (stdout is protocol only): "{\"jsonrpc\":\"2.0\",\"method\":\"x\",\"params\":\"a\xffb\"}"`},
		},
		{
			name:   "leaves a grandchild running",
			script: fakeagent.Script{Prompts: [][]fakeagent.Action{{{Spawn: []string{"sleep", "300"}}}}},
			steps:  basic,
			want:   []string{"left processes running in its process group"},
		},
		{
			name:   "exits leaving a grandchild that holds stdout",
			script: fakeagent.Script{Initialize: []fakeagent.Action{{Spawn: []string{"sleep", "300"}}, {Exit: intp(0)}}},
			steps:  basic,
			want:   []string{"agent exited (exit status 0) before answering initialize", "left processes running"},
		},
		{
			name: "writes a malformed log",
			script: fakeagent.Script{Prompts: [][]fakeagent.Action{
				{{TurnStart: true}, {RawLog: `{"type":"turn/end","seq":1,`}, {TurnEnd: "completed"}}}},
			steps: append(basic, op("waitForTurnEnd")),
			want:  []string{"step 4 (waitForTurnEnd): sessions/sess-1/session.jsonl:3: malformed event", "harvest session logs: sessions/sess-1/session.jsonl:3"},
		},
		{
			name:   "waits for a turn that never ends",
			script: fakeagent.Script{Prompts: [][]fakeagent.Action{{{TurnStart: true}, {TurnEnd: "completed"}}}},
			steps:  append(basic, op("waitForTurnEnd", "minimumTurn", 2, "timeoutMs", 200)),
			want:   []string{"step 4 (waitForTurnEnd): timed out after 200ms waiting for turn/end with turn >= 2 in sessions/sess-1/session.jsonl"},
		},
		{
			name:  "waits for a child that never comes",
			steps: append(basic, op("waitForSubagentTurnEnd", "child", 2, "timeoutMs", 200)),
			want:  []string{"step 4 (waitForSubagentTurnEnd): timed out after 200ms waiting for turn/end with turn >= 1 in child log 2 (0 child logs so far)"},
		},
		{
			name:  "answers a prompt that must fail",
			steps: []map[string]any{op("initialize"), op("newSession"), op("promptExpectError", "text", "x")},
			want:  []string{`step 3 (promptExpectError): session/prompt answered stopReason "end_turn", want a JSON-RPC error`},
		},
		{
			name:  "accepts a session that must be rejected",
			steps: []map[string]any{op("initialize"), op("newSessionExpectError")},
			want:  []string{"step 2 (newSessionExpectError): session/new succeeded (session sess-1), want a JSON-RPC error"},
		},
		{
			name: "asks a permission the answers do not offer",
			script: fakeagent.Script{Prompts: [][]fakeagent.Action{{{Call: "session/request_permission",
				Params: []byte(`{"sessionId":"{{session}}","toolCall":{"toolCallId":"c"},"options":[{"optionId":"y","name":"y","kind":"allow_once"},{"optionId":"n","name":"n","kind":"reject_once"}]}`)}}}},
			steps: basic,
			extra: map[string]any{"permissionAnswers": []map[string]string{{"kind": "allow_always"}}},
			want:  []string{`step 3 (prompt): session/request_permission #1: permissionAnswers[0] is "allow_always", but the agent offered allow_once, reject_once`},
		},
		{
			name: "asks more permissions than answered",
			script: fakeagent.Script{Prompts: [][]fakeagent.Action{{{Call: "session/request_permission",
				Params: []byte(`{"sessionId":"{{session}}","toolCall":{"toolCallId":"c"},"options":[{"optionId":"y","name":"y","kind":"allow_once"}]}`)}}}},
			steps: basic,
			want:  []string{"step 3 (prompt): session/request_permission #1 (options allow_once): input.json has only 0 permissionAnswers"},
		},
		{
			name: "leaves replay entries unserved",
			script: fakeagent.Script{AtEOF: []fakeagent.Action{{Report: &agentenv.Report{
				Fixtures: []agentenv.FixtureReport{{Fixture: "session.jsonl", Served: 1, Left: 2}}, Errors: []string{"unknown session: re-record"}}}}},
			steps: basic,
			want:  []string{"fixture session.jsonl: 2 of 3 model calls never made", "replay error: unknown session: re-record"},
		},
		{
			name:   "writes logs but no replay report",
			script: fakeagent.Script{AtEOF: []fakeagent.Action{}},
			steps:  basic,
			want:   []string{"replay: the agent wrote 1 session log(s) but no replay-report.json"},
		},
		{
			name:   "exits non-zero at stdin close",
			script: fakeagent.Script{AtEOF: []fakeagent.Action{{Stderr: "flush failed"}, {Exit: intp(3)}}},
			steps:  []map[string]any{op("initialize")},
			want:   []string{"agent exited with exit status 3 after stdin was closed", "flush failed"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			sc := scenario{script: tt.script, input: input(t, tt.steps, tt.extra)}
			res, err := run(t, sc.write(t), tt.edit)
			if err == nil {
				t.Fatalf("Run succeeded, want an error containing %q; stderr:\n%s", tt.want, res.Stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if timedOut := "timed out after"; strings.Contains(err.Error(), timedOut) && !slices.ContainsFunc(tt.want, func(w string) bool { return strings.Contains(w, timedOut) }) {
				t.Errorf("error says a step ran out of time, want it to fail at once:\n%v", err)
			}
			if res == nil {
				t.Error("Result is nil although the agent was started")
			}
		})
	}
}

func TestRunRecordModeNeedsNoReport(t *testing.T) {
	sc := scenario{script: fakeagent.Script{AtEOF: []fakeagent.Action{}},
		input: input(t, []map[string]any{op("initialize"), op("newSession"), op("prompt", "text", "go")}, nil)}
	res, err := run(t, sc.write(t), func(c *harness.Config) { c.Mode = "record" })
	if err != nil {
		t.Fatal(err)
	}
	if res.Report != nil || len(res.Logs) != 1 {
		t.Errorf("report %v, %d logs; want none and 1", res.Report, len(res.Logs))
	}
}

func TestRunHonoursContext(t *testing.T) {
	t.Parallel()
	sc := scenario{script: fakeagent.Script{Initialize: []fakeagent.Action{{NoReply: true}}},
		input: input(t, []map[string]any{op("initialize")}, nil)}
	dir := sc.write(t)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	exe, _ := os.Executable()
	tmp := t.TempDir()
	_, err := harness.Run(ctx, harness.Config{Settings: harness.Settings{Agent: []string{exe, "-test.run=^$"}, TempDir: tmp, Grace: 200 * time.Millisecond}, Dir: dir})
	assertNoLeftovers(t, tmp)
	if err == nil || !strings.Contains(err.Error(), "step 1 (initialize): cancelled while waiting for the initialize response: context deadline exceeded") {
		t.Fatalf("error %v, want the cancellation", err)
	}
}

// TestTermShutdown: an agent whose normal end is SIGTERM (acpsnap.yml's
// shutdown: term) passes when it needs one, and is sent it at once rather
// than after a grace (the grace is an hour: a run that waited it out would
// hang until go test's timeout); one that also ignores SIGTERM still fails.
func TestTermShutdown(t *testing.T) {
	t.Parallel()
	basic := []map[string]any{op("initialize"), op("newSession"), op("prompt", "text", "go")}
	term := func(c *harness.Config) { c.TermShutdown, c.Grace = true, time.Hour }
	// The report is written with the prompt's answer: SIGTERM comes as soon
	// as stdin closes, before an at-EOF action could run.
	report := []fakeagent.Action{{Report: &agentenv.Report{Fixtures: []agentenv.FixtureReport{}}}}
	sc := scenario{script: fakeagent.Script{IgnoreEOF: true, Prompts: [][]fakeagent.Action{report}, AtEOF: []fakeagent.Action{}},
		input: input(t, basic, nil)}
	res, err := run(t, sc.write(t), term)
	if err != nil {
		t.Fatalf("a SIGTERM-ending agent failed under shutdown term: %v\n%s", err, res.Stderr)
	}
	if sd := res.Shutdown; sd.How != "sent SIGTERM" || sd.Term <= 0 || sd.Leftovers {
		t.Errorf("Result.Shutdown = %+v, want sent SIGTERM, a time to exit after it, no leftovers", sd)
	}
	stubborn := scenario{script: fakeagent.Script{IgnoreEOF: true, IgnoreTerm: true}, input: input(t, basic, nil)}
	res, err = run(t, stubborn.write(t), func(c *harness.Config) { c.TermShutdown = true })
	if err == nil || !strings.Contains(err.Error(), "killed with SIGKILL after ignoring SIGTERM") {
		t.Fatalf("an agent ignoring SIGTERM under shutdown term: %v", err)
	}
	if res.Shutdown.How != "killed with SIGKILL after ignoring SIGTERM" {
		t.Errorf("Result.Shutdown.How = %q, want the SIGKILL", res.Shutdown.How)
	}
}
