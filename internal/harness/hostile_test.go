package harness_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/testagents/fakeagent"
)

// These tests play a hostile or broken agent against the harness. Each run
// must end within its bound with one clear error (or pass, where the agent
// did nothing wrong), and leave no process and no temporary folder (run
// checks both).

var basicSteps = []map[string]any{op("initialize"), op("newSession"), op("prompt", "text", "go")}

func emptyReport() fakeagent.Action {
	return fakeagent.Action{Report: &agentenv.Report{Fixtures: []agentenv.FixtureReport{}}}
}

// TestNotificationBurst: an agent that streams 15,000 chunks at once (a
// legitimate long answer) passes, four runs in parallel; the SDK's queue
// of 1,024 notifications used to overflow, close the connection and hang
// the run for good.
func TestNotificationBurst(t *testing.T) {
	t.Parallel()
	const n = 15000
	for i := range 4 {
		t.Run(string(rune('a'+i)), func(t *testing.T) {
			t.Parallel()
			dir := scenario{script: fakeagent.Script{Prompts: [][]fakeagent.Action{{{TurnStart: true}, {Burst: n}, {TurnEnd: "completed"}}}},
				input: input(t, basicSteps, nil)}.write(t)
			res, err := run(t, dir, func(c *harness.Config) {
				c.StepTimeout = 60 * time.Second
				c.Grace = 5 * time.Second // four bursts at once, maybe under -race: the exit may be slow
			})
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if len(res.Stdout) < n+3 {
				t.Errorf("recorded %d stdout lines, want at least %d", len(res.Stdout), n+3)
			}
		})
	}
}

// TestHostileStdout: protocol lines that must fail the run at once, with
// the line's number and why.
func TestHostileStdout(t *testing.T) {
	t.Parallel()
	type testCase struct {
		name    string
		actions []fakeagent.Action
		want    string
	}
	for _, tc := range []testCase{
		{"duplicate keys", []fakeagent.Action{{Stdout: `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"x","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"SOMETHING ELSE","text":"ok"}}}}`}},
			`agent stdout:3: $.params.update.content.text: duplicate key`},
		{"duplicate keys with spaces", []fakeagent.Action{{Stdout: `{"jsonrpc":"2.0","method":"x","params":{"a" : 1, "a" : 2}}`}},
			`$.params.a: duplicate key`},
		{"line over 64 MiB", []fakeagent.Action{{LongLine: 64<<20 + 10}},
			"agent stdout line 3: line too long (more than 64 MiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := scenario{script: fakeagent.Script{Prompts: [][]fakeagent.Action{append(tc.actions, fakeagent.Action{NoReply: true})}},
				input: input(t, basicSteps, nil)}.write(t)
			_, err := run(t, dir, func(c *harness.Config) { c.StepTimeout = 60 * time.Second }) // 64 MiB take a while on a loaded machine
			if err == nil || !strings.Contains(err.Error(), "step 3 (prompt): "+tc.want) && !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run error = %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "closed its stdout") {
				t.Errorf("the cause is blamed on the agent's shutdown: %v", err)
			}
		})
	}
}

// TestHostileHarvest: files the agent leaves in its sessions directory.
func TestHostileHarvest(t *testing.T) {
	header := func(id string) string {
		b, _ := json.Marshal(map[string]any{"type": "session", "version": 1, "id": id, "createdAt": 1, "cwd": "/x", "delegationDepth": 0})
		return string(b)
	}
	type testCase struct {
		name  string
		atEOF []fakeagent.Action
		want  string // error substring; "": the run passes
		check func(t *testing.T, res *harness.Result)
	}
	for _, tc := range []testCase{
		{name: "FIFO as a session log", atEOF: []fakeagent.Action{emptyReport(), {File: &fakeagent.File{Path: "evil/session.jsonl", Fifo: true}}},
			want: "harvest session logs: safefile: sessions/evil/session.jsonl: not a regular file (named pipe)"},
		{name: "session log linked to /dev/zero", atEOF: []fakeagent.Action{emptyReport(), {File: &fakeagent.File{Path: "evil/session.jsonl", Link: "/dev/zero"}}},
			want: "not a regular file (a symbolic link)"},
		{name: "FIFO as the replay report", atEOF: []fakeagent.Action{{File: &fakeagent.File{Path: "replay-report.json", Fifo: true}}},
			want: "replay: safefile: sessions/replay-report.json: not a regular file (named pipe)"},
		{name: "BOM", atEOF: []fakeagent.Action{emptyReport(), {File: &fakeagent.File{Path: "bom/session.jsonl", Content: "\ufeff" + header("b") + "\n"}}},
			want: "sessions/bom/session.jsonl:1: the log starts with a UTF-8 byte order mark (BOM)"},
		{name: "header without a trailing newline", atEOF: []fakeagent.Action{emptyReport(), {File: &fakeagent.File{Path: "nonl/session.jsonl", Content: header("zz-no-newline")}}},
			check: func(t *testing.T, res *harness.Result) {
				for _, l := range res.Logs {
					if l.Header.ID == "zz-no-newline" {
						return
					}
				}
				t.Errorf("the log whose header has no newline was not harvested (%d logs)", len(res.Logs))
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := scenario{script: fakeagent.Script{AtEOF: tc.atEOF}, input: input(t, basicSteps, nil)}.write(t)
			res, err := run(t, dir, nil)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Run: %v", err)
				}
				tc.check(t, res)
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Run error = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestEscapedProcesses: a setsid grandchild of the agent, or of a
// terminal, leaves every process group the harness kills; as the child
// subreaper the harness still finds it, kills it and says so.
func TestEscapedProcesses(t *testing.T) {
	// The daemon is in its own session before the command returns: it
	// makes the ready file after setsid, and the command waits for it.
	const daemon = `setsid -f sh -c 'touch ready; exec sleep 301' </dev/null >/dev/null 2>&1; while [ ! -e ready ]; do sleep 0.01; done`
	terminal, _ := json.Marshal(map[string]any{"sessionId": "{{session}}", "command": "sh", "args": []string{"-c", daemon}})
	type testCase struct {
		name    string
		actions []fakeagent.Action
	}
	for _, tc := range []testCase{
		{"agent's setsid grandchild", []fakeagent.Action{{Run: []string{"sh", "-c", daemon}}}},
		{"terminal's setsid grandchild", []fakeagent.Action{{Call: "terminal/create", Params: terminal},
			{Call: "terminal/wait_for_exit", Params: json.RawMessage(`{"sessionId":"{{session}}","terminalId":"{{terminal}}"}`)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := scenario{script: fakeagent.Script{Prompts: [][]fakeagent.Action{tc.actions}},
				input: input(t, basicSteps, map[string]any{"clientCapabilities": map[string]any{"terminal": true}})}.write(t)
			_, err := run(t, dir, nil) // run fails the test if the sleep survives
			// The daemon is named sleep, or sh when the scan comes between
			// its touch and its exec.
			if err == nil || !strings.Contains(err.Error(), "outlived it outside the process groups") ||
				!strings.Contains(err.Error(), "sleep (pid") && !strings.Contains(err.Error(), "sh (pid") {
				t.Fatalf("Run error = %v, want the escaped sleep named and killed", err)
			}
		})
	}
}
