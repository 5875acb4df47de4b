package harness_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/testagents/fakeagent"
)

func TestRunDrivesEveryStep(t *testing.T) {
	cancelled := []fakeagent.Action{{TurnStart: true}, {WriteFile: "marker"}, {WaitCancel: true}, {TurnEnd: "aborted"}}
	sc := scenario{
		script: fakeagent.Script{Prompts: [][]fakeagent.Action{
			{{TurnStart: true}, {WriteFile: "made-by-agent"}, {TurnEnd: "completed"}},
			{{TurnStart: true}, {TurnEnd: "completed"}},
			{{ReplyError: &fakeagent.RPCError{Code: -32000, Message: "model unavailable"}}},
			cancelled,
			{{TurnStart: true}, {WaitCancel: true}, {TurnEnd: "aborted"}},
			{{TurnStart: true}, {Child: &fakeagent.Child{DelayMs: 50}}, {TurnEnd: "completed"}},
		}},
		input: input(t, []map[string]any{
			op("initialize"),
			op("newSessionExpectError", "params", map[string]any{"cwd": "relative/dir"}),
			op("newSession"),
			op("prompt", "text", "hello from {{cwd}}"),
			op("waitForFile", "path", "made-by-agent"),
			op("promptContent", "content", []map[string]any{{"type": "text", "text": "two"}}),
			op("promptExpectError", "text", "fail please"),
			op("promptAndCancel", "text", "stop me", "waitForFile", "marker"),
			op("promptAndCancel", "text", "stop me at turn start"),
			op("waitForTurnStart", "minimumTurn", 4),
			op("waitForTurnEnd", "minimumTurn", 4, "timeoutMs", 2000),
			op("prompt", "text", "spawn a child"),
			op("waitForSubagentTurnEnd", "child", 1, "minimumTurn", 1),
			op("cancel"),
		}, map[string]any{"clientCapabilities": map[string]any{"fs": map[string]any{"readTextFile": true}}}),
	}
	res, err := run(t, sc.write(t), nil)
	if err != nil {
		t.Fatal(err)
	}

	var ops []string
	for _, s := range res.Steps {
		ops = append(ops, s.Op)
	}
	want := []string{"initialize", "newSessionExpectError", "newSession", "prompt", "waitForFile", "promptContent",
		"promptExpectError", "promptAndCancel", "promptAndCancel", "waitForTurnStart", "waitForTurnEnd", "prompt",
		"waitForSubagentTurnEnd", "cancel"}
	if diff := cmp.Diff(want, ops); diff != "" {
		t.Errorf("steps (-want +got):\n%s", diff)
	}
	for i, s := range res.Steps[1:] { // timed from their start, in order, after the agent's
		if prev := res.Steps[i]; s.Start.Before(prev.Start.Add(prev.Duration)) || prev.Start.Before(res.Started) {
			t.Errorf("step %d (%s) starts before step %d ended", i+2, s.Op, i+1)
		}
	}
	if res.Shutdown.How != "exited" || res.Shutdown.Term != 0 {
		t.Errorf("Result.Shutdown = %+v, want exited on stdin EOF, no SIGTERM", res.Shutdown)
	}

	// The wire: every line recorded raw and JSON, answers included.
	var stops []string
	for _, line := range res.Stdout {
		var m struct {
			Result struct {
				StopReason string `json:"stopReason"`
			} `json:"result"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		if m.Result.StopReason != "" {
			stops = append(stops, m.Result.StopReason)
		}
	}
	if diff := cmp.Diff([]string{"end_turn", "end_turn", "cancelled", "cancelled", "end_turn"}, stops); diff != "" {
		t.Errorf("stop reasons on stdout (-want +got):\n%s", diff)
	}

	// Harvest: primary first, then the child.
	if len(res.Logs) != 2 || res.Logs[0].Header.ID != "sess-1" || res.Logs[1].Header.ParentSession != "sess-1" {
		t.Fatalf("logs: %+v", res.Logs)
	}
	if got := len(events(t, res.Logs[0], "turn/end")); got != 5 {
		t.Errorf("primary log has %d turn/end events, want 5", got)
	}
	if res.Report == nil {
		t.Error("no replay report harvested")
	}

	// What the agent received (it echoes requests on stderr).
	for _, want := range []string{
		`<- initialize {"clientCapabilities":{"auth":{},"fs":{"readTextFile":true}}`,
		`<- session/new {"cwd":"relative/dir","mcpServers":[]}`,
		`"text":"hello from ` + res.Cwd + `"`,
		`<- session/cancel {"sessionId":"sess-1"}`,
	} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("agent stderr lacks %s\nstderr:\n%s", want, res.Stderr)
		}
	}
	// What the client sent, each message placed before everything the
	// agent wrote in answer.
	if diff := cmp.Diff([]int{0}, res.Incarnations); diff != "" {
		t.Errorf("Incarnations (-want +got):\n%s", diff)
	}
	var methods []string
	for _, s := range res.Sent {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if err := json.Unmarshal(s.Line, &m); err != nil {
			t.Fatalf("sent line %q: %v", s.Line, err)
		}
		if m.Method == "" {
			continue
		}
		methods = append(methods, m.Method)
		for i, line := range res.Stdout {
			var a struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			json.Unmarshal(line, &a)
			if m.ID != nil && a.Method == "" && string(a.ID) == string(m.ID) && i < s.After {
				t.Errorf("%s (id %s) sent after %d stdout lines, but its answer is line %d", m.Method, m.ID, s.After, i+1)
			}
		}
	}
	if want := []string{"initialize", "session/new", "session/new", "session/prompt", "session/prompt", "session/prompt",
		"session/prompt", "session/cancel", "session/prompt", "session/cancel", "session/prompt", "session/cancel"}; !cmp.Equal(want, methods) {
		t.Errorf("methods sent (-want +got):\n%s", cmp.Diff(want, methods))
	}
	if filepath.Base(res.Cwd) != "workspace" {
		t.Errorf("cwd %s: want base name workspace", res.Cwd)
	}
	if _, err := os.Stat(res.Cwd); !os.IsNotExist(err) {
		t.Errorf("cwd %s still exists after Run", res.Cwd)
	}
}

func TestRunEnvironment(t *testing.T) {
	tests := []struct {
		name    string
		mode    harness.Mode
		want    []string
		notWant []string
	}{
		{"replay", "", []string{"ACPSNAP_MODE=replay", "ACPSNAP_PERMISSION=ask", "TZ=UTC", "LANG=C.UTF-8", "SCENARIO_VAR=from-manifest", "ACPSNAP_FIXTURE=", "ACPSNAP_FIXTURE_CHILDREN=", "ACPSNAP_OVERRIDE="},
			[]string{"DEEPSEEK_API_KEY", "LEAKY"}},
		{"record", "record", []string{"ACPSNAP_MODE=record", "DEEPSEEK_API_KEY=sk-test"}, []string{"LEAKY"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := scenario{
				permission: "ask",
				script:     fakeagent.Script{Start: []fakeagent.Action{{PrintEnv: true}}},
				input:      input(t, []map[string]any{op("initialize")}, nil),
				files: map[string]string{"session.jsonl": "", "session.1.jsonl": "", "session.2.jsonl": "",
					"session.4.jsonl": "", "replay.override.json": "[]"},
			}
			dir := sc.write(t)
			var tmp string
			tmpWasDir := false
			res, err := run(t, dir, func(c *harness.Config) {
				c.Mode = tt.mode
				c.Secrets = map[string]string{"DEEPSEEK_API_KEY": "sk-test"}
				tmp = c.TempDir
				c.OnStart = func(r harness.Roots) {
					fi, err := os.Stat(filepath.Join(filepath.Dir(r.Cwd), "tmp"))
					tmpWasDir = err == nil && fi.IsDir()
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			env := map[string]string{}
			for _, line := range strings.Split(res.Stderr, "\n") {
				if kv, ok := strings.CutPrefix(line, "fakeagent: env "); ok {
					k, v, _ := strings.Cut(kv, "=")
					env[k] = v
				}
			}
			for _, w := range tt.want {
				k, v, _ := strings.Cut(w, "=")
				if got, ok := env[k]; !ok || !strings.HasPrefix(got, v) {
					t.Errorf("agent env %s = %q, want prefix %q", k, got, v)
				}
			}
			for _, k := range tt.notWant {
				if _, ok := env[k]; ok {
					t.Errorf("agent env has %s", k)
				}
			}
			// The private roots: all under Root, which is named in Result
			// so the caller can normalize it, and gone after Run.
			type roots struct{ Root, Cwd, Home, Tmp string }
			wantRoots := roots{Root: filepath.Join(tmp, filepath.Base(res.Root)), Cwd: filepath.Join(res.Root, "workspace"),
				Home: filepath.Join(res.Root, "home"), Tmp: filepath.Join(res.Root, "tmp")}
			gotRoots := roots{Root: res.Root, Cwd: res.Cwd, Home: env["HOME"], Tmp: env["TMPDIR"]}
			if diff := cmp.Diff(wantRoots, gotRoots); diff != "" {
				t.Errorf("private roots (-want +got):\n%s", diff)
			}
			if res.Home != env["HOME"] || !strings.HasPrefix(filepath.Base(res.Root), "acpsnap-") {
				t.Errorf("Result.Home %s, Result.Root %s; want the agent's HOME %s and acpsnap-<nonce>", res.Home, res.Root, env["HOME"])
			}
			if !tmpWasDir {
				t.Errorf("%s/tmp was not a directory when the agent started", res.Root)
			}
			children := strings.Split(env["ACPSNAP_FIXTURE_CHILDREN"], string(os.PathListSeparator))
			wantChildren := []string{filepath.Join(dir, "session.1.jsonl"), filepath.Join(dir, "session.2.jsonl")}
			if diff := cmp.Diff(wantChildren, children); diff != "" {
				t.Errorf("ACPSNAP_FIXTURE_CHILDREN (-want +got):\n%s", diff)
			}
		})
	}
}

func TestRunSeedsWorkspace(t *testing.T) {
	sc := scenario{
		input: input(t, []map[string]any{op("initialize")}, nil),
		files: map[string]string{"workspace/bin/tool.sh": "#!/bin/sh\n", "workspace/ro/file.txt": "x"},
	}
	dir := sc.write(t)
	if err := os.Chmod(filepath.Join(dir, "workspace/bin/tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(dir, "workspace/ro"), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "workspace/ro"), 0o755) })
	modes := map[string]os.FileMode{}
	_, err := run(t, dir, func(c *harness.Config) {
		// A relative agent path is the caller's, not the scenario cwd's.
		wd, _ := os.Getwd()
		if rel, err := filepath.Rel(wd, c.Agent[0]); err == nil && strings.Contains(rel, "/") {
			c.Agent[0] = rel
		}
		c.OnStart = func(r harness.Roots) {
			for _, rel := range []string{"bin/tool.sh", "ro", "ro/file.txt"} {
				if fi, err := os.Stat(filepath.Join(r.Cwd, rel)); err == nil {
					modes[rel] = fi.Mode().Perm()
				}
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]os.FileMode{"bin/tool.sh": 0o755, "ro": 0o555, "ro/file.txt": 0o644}
	if diff := cmp.Diff(want, modes); diff != "" {
		t.Errorf("seeded modes (-want +got):\n%s", diff)
	}
}

// TestRunErrorKinds: errors.Is tells infrastructure failures from invalid
// scenarios and from agents failing the scenario.
func TestRunErrorKinds(t *testing.T) {
	type kinds struct{ Infrastructure, InvalidScenario bool }
	tests := []struct {
		name    string
		input   string
		script  fakeagent.Script
		edit    func(*harness.Config)
		want    kinds
		wantErr string
		missing bool // Config.TempDir is missing, and must stay so
	}{
		{
			name:    "missing temporary folder",
			edit:    func(c *harness.Config) { c.TempDir = filepath.Join(c.TempDir, "missing") },
			want:    kinds{Infrastructure: true},
			wantErr: "temporary folder: stat ",
			missing: true,
		},
		{
			name:    "temporary folder is a file",
			edit:    func(c *harness.Config) { c.TempDir = filepath.Join(c.Dir, "input.json") },
			want:    kinds{Infrastructure: true},
			wantErr: "is not a directory",
		},
		{
			name:    "agent command not found",
			edit:    func(c *harness.Config) { c.Agent = []string{"./no-such-agent"} },
			want:    kinds{Infrastructure: true},
			wantErr: `start agent "./no-such-agent"`,
		},
		{
			name:    "invalid scenario",
			input:   `{"steps":[{"op":"promt"}]}`,
			want:    kinds{InvalidScenario: true},
			wantErr: `unknown op "promt"`,
		},
		{
			name:    "agent fails the scenario",
			script:  fakeagent.Script{Initialize: []fakeagent.Action{{Exit: intp(1)}}},
			want:    kinds{},
			wantErr: "agent exited (exit status 1) before answering initialize",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sc := scenario{script: tt.script, input: tt.input}
			if sc.input == "" {
				sc.input = input(t, []map[string]any{op("initialize")}, nil)
			}
			var tmp string
			_, err := run(t, sc.write(t), func(c *harness.Config) {
				if tt.edit != nil {
					tt.edit(c)
				}
				tmp = c.TempDir
			})
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error %v, want it to contain %q", err, tt.wantErr)
			}
			got := kinds{errors.Is(err, harness.ErrInfrastructure), errors.Is(err, harness.ErrInvalidScenario)}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("kinds of %v (-want +got):\n%s", err, diff)
			}
			if _, err := os.Stat(tmp); tt.missing && !os.IsNotExist(err) {
				t.Errorf("Run created the missing TempDir %s (stat: %v)", tmp, err)
			}
		})
	}
}

// waitForUpdate returns once the session's stdout carried a session/update
// of the kind asked (here sent after the prompt's answer, on a timer, as
// codex-acp sends available_commands_update), and times out naming the
// kind when none comes.
func TestRunWaitForUpdate(t *testing.T) {
	t.Parallel()
	late := fakeagent.Script{Prompts: [][]fakeagent.Action{
		{{TurnStart: true}, {TurnEnd: "completed"}, {Spawn: []string{"sh", "-c", `sleep 0.1; echo '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess-1","update":{"sessionUpdate":"available_commands_update","availableCommands":[]}}}'`}}},
	}}
	steps := func(kind string, timeoutMs int) string {
		return input(t, []map[string]any{op("initialize"), op("newSession"), op("prompt", "text", "hi"),
			op("waitForUpdate", "update", kind, "timeoutMs", timeoutMs)}, nil)
	}
	res, err := run(t, scenario{script: late, input: steps("available_commands_update", 5000)}.write(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	if last := res.Stdout[len(res.Stdout)-1]; !strings.Contains(string(last), "available_commands_update") {
		t.Errorf("the run ended before the update arrived; last stdout line %s", last)
	}
	_, err = run(t, scenario{script: late, input: steps("plan", 300)}.write(t), nil)
	if err == nil || !strings.Contains(err.Error(), "waitForUpdate") || !strings.Contains(err.Error(), "session/update plan") {
		t.Errorf("err = %v, want a waitForUpdate timeout naming session/update plan", err)
	}
}

// TestRunEnvPath: agent.env may put a folder before the harness's PATH
// through {{path}}; the agent sees one PATH, the extended one.
func TestRunEnvPath(t *testing.T) {
	sc := scenario{script: fakeagent.Script{Start: []fakeagent.Action{{PrintEnv: true}}}, input: input(t, []map[string]any{op("initialize")}, nil)}
	res, err := run(t, sc.write(t), func(c *harness.Config) { c.Env = map[string]string{"PATH": "{{home}}/bin:{{path}}"} })
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, line := range strings.Split(res.Stderr, "\n") {
		if v, ok := strings.CutPrefix(line, "fakeagent: env PATH="); ok {
			paths = append(paths, v)
		}
	}
	if want := []string{res.Home + "/bin:" + os.Getenv("PATH")}; !cmp.Equal(want, paths) {
		t.Errorf("agent PATH (-want +got):\n%s", cmp.Diff(want, paths))
	}
}
