package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/model"
)

// seed writes files (a name ending in "/" is a directory) under dir.
func seed(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// checkFiles compares files under dir with want.
func checkFiles(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	for name, content := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if diff := cmp.Diff(content, string(b)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", name, diff)
		}
	}
}

// runOneTool prompts once with a model that calls c and then answers "ok";
// it returns the logged tool result.
func runOneTool(t *testing.T, r *rig, sid string, sc *script) toolResultData {
	t.Helper()
	r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
	results := data[toolResultData](t, r.log(sid), "tool/result")
	if len(results) != 1 {
		t.Fatalf("%d tool results, want 1", len(results))
	}
	return results[0]
}

func TestLocalTools(t *testing.T) {
	type testCase struct {
		name  string
		seed  map[string]string
		call  model.ToolCall
		want  string // the result; {{cwd}} stands for the session cwd
		isErr bool
		files map[string]string // file contents afterwards
	}
	abc := map[string]string{"a.txt": "1\n2\n3\n"}
	for _, tc := range []testCase{
		{name: "read whole file", seed: abc, call: call("c1", "read_file", map[string]any{"path": "a.txt"}), want: "1\n2\n3\n"},
		{name: "read lines", seed: abc, call: call("c1", "read_file", map[string]any{"path": "a.txt", "offset": 2, "limit": 1}), want: "2\n"},
		{name: "read past the end", seed: abc, call: call("c1", "read_file", map[string]any{"path": "a.txt", "offset": 9}), want: "read a.txt: offset 9 is past the end of the file (3 lines)", isErr: true},
		{name: "read missing file", call: call("c1", "read_file", map[string]any{"path": "nope.txt"}), want: "read nope.txt: no such file or directory", isErr: true},
		{name: "read escaping path", call: call("c1", "read_file", map[string]any{"path": "../x"}), want: `path "../x" is outside the working directory`, isErr: true},
		{name: "read absolute outside", call: call("c1", "read_file", map[string]any{"path": "/etc/hostname"}), want: `path "/etc/hostname" is outside the working directory`, isErr: true},
		{name: "read absolute inside", seed: abc, call: call("c1", "read_file", map[string]any{"path": "{{cwd}}/a.txt", "limit": 1}), want: "1\n"},
		{name: "invalid arguments", call: model.ToolCall{ID: "c1", Name: "read_file", Arguments: `{"path":`}, want: "invalid arguments: unexpected end of JSON input", isErr: true},
		{name: "write new file", call: call("c1", "write_file", map[string]any{"path": "d/b.txt", "content": "hi"}), want: "wrote 2 bytes to d/b.txt", files: map[string]string{"d/b.txt": "hi"}},
		{name: "write without content", call: call("c1", "write_file", map[string]any{"path": "b.txt"}), want: "content is required", isErr: true},
		{name: "edit once", seed: map[string]string{"a.txt": "hello world"}, call: call("c1", "edit_file", map[string]any{"path": "a.txt", "old_string": "world", "new_string": "there"}),
			want: "edited a.txt: replaced 1 occurrence(s)", files: map[string]string{"a.txt": "hello there"}},
		{name: "edit ambiguous", seed: map[string]string{"a.txt": "a a"}, call: call("c1", "edit_file", map[string]any{"path": "a.txt", "old_string": "a", "new_string": "b"}),
			want: "old_string occurs 2 times in a.txt; pass replace_all or a longer old_string", isErr: true, files: map[string]string{"a.txt": "a a"}},
		{name: "edit all", seed: map[string]string{"a.txt": "a a"}, call: call("c1", "edit_file", map[string]any{"path": "a.txt", "old_string": "a", "new_string": "b", "replace_all": true}),
			want: "edited a.txt: replaced 2 occurrence(s)", files: map[string]string{"a.txt": "b b"}},
		{name: "edit not found", seed: map[string]string{"a.txt": "abc"}, call: call("c1", "edit_file", map[string]any{"path": "a.txt", "old_string": "x", "new_string": "y"}),
			want: "old_string not found in a.txt", isErr: true},
		{name: "list cwd", seed: map[string]string{"b.txt": "", "a/x.txt": "", "c/": ""}, call: call("c1", "list_dir", map[string]any{}), want: "a/\nb.txt\nc/\n"},
		{name: "list subdir", seed: map[string]string{"a/x.txt": "", "a/y/": ""}, call: call("c1", "list_dir", map[string]any{"path": "a"}), want: "x.txt\ny/\n"},
		{name: "list empty", seed: map[string]string{"e/": ""}, call: call("c1", "list_dir", map[string]any{"path": "e"}), want: "(empty directory)"},
		{name: "bash output", call: call("c1", "bash", map[string]any{"command": "echo hi; echo err >&2"}), want: "hi\nerr\n"},
		{name: "bash in cwd", call: call("c1", "bash", map[string]any{"command": "pwd"}), want: "{{cwd}}\n"},
		{name: "bash no output", call: call("c1", "bash", map[string]any{"command": "true"}), want: "(no output)"},
		{name: "bash exit code", call: call("c1", "bash", map[string]any{"command": "echo out; exit 3"}), want: "out\n\n[exit code 3]", isErr: true},
		{name: "bash timeout", call: call("c1", "bash", map[string]any{"command": "echo start; sleep 30", "timeoutMs": 200}), want: "start\n\n[timed out after 200ms]", isErr: true},
		{name: "todo_write", call: call("c1", "todo_write", map[string]any{"todos": []map[string]string{{"content": "a", "status": "completed"}, {"content": "b", "status": "pending"}}}),
			want: "plan updated: 2 todos (1 completed, 0 in progress, 1 pending)"},
		{name: "todo_write bad status", call: call("c1", "todo_write", map[string]any{"todos": []map[string]string{{"content": "a", "status": "done"}}}),
			want: `todos[0].status: "done" is not pending, in_progress or completed`, isErr: true},
		{name: "unknown tool", call: call("c1", "nope", map[string]any{}), want: `unknown tool "nope"`, isErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cwd := t.TempDir()
			tc.call.Arguments = strings.ReplaceAll(tc.call.Arguments, "{{cwd}}", cwd)
			sc := newScript(use(tc.call), say("ok"))
			r := newRigAt(t, sc.provider(), nil, nil, cwd)
			seed(t, r.cwd, tc.seed)
			sid := r.session(acp.ClientCapabilities{})
			got := runOneTool(t, r, sid, sc)
			want := toolResultData{Turn: 1, Step: 1, CallID: "c1", Content: strings.ReplaceAll(tc.want, "{{cwd}}", r.cwd), Error: tc.isErr}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("tool/result (-want +got):\n%s", diff)
			}
			if msgs := toolMessages(sc.requests()); len(msgs) != 1 || msgs[0] != "c1: "+want.Content {
				t.Errorf("the model saw %q, want the result", msgs)
			}
			checkFiles(t, r.cwd, tc.files)
		})
	}
}

func TestToolCallsAnnouncedThenRunInOrder(t *testing.T) {
	sc := newScript(
		use(call("c1", "write_file", map[string]any{"path": "a.txt", "content": "x"}),
			call("c2", "read_file", map[string]any{"path": "a.txt"}),
			call("c3", "todo_write", map[string]any{"todos": []map[string]string{{"content": "ship", "status": "in_progress"}}})),
		say("done"))
	r := newRig(t, sc.provider(), nil, nil)
	sid := r.session(acp.ClientCapabilities{})
	r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
	want := []string{
		`tool_call c1 pending edit "Write a.txt"`,
		`tool_call c2 pending read "Read a.txt"`,
		`tool_call c3 pending think "Update plan"`,
		`tool_call_update c1 in_progress`,
		`tool_call_update c1 completed "wrote 1 bytes to a.txt"`,
		`tool_call_update c2 in_progress`,
		`tool_call_update c2 completed "x"`,
		`tool_call_update c3 in_progress`,
		`plan in_progress:ship`,
		`tool_call_update c3 completed "plan updated: 1 todos (0 completed, 1 in progress, 0 pending)"`,
		`message done`,
	}
	for i := range want {
		want[i] = sid + " " + want[i]
	}
	if diff := cmp.Diff(want, r.client.summary()); diff != "" {
		t.Errorf("session updates (-want +got):\n%s", diff)
	}
	wantMsgs := []string{"c1: wrote 1 bytes to a.txt", "c2: x", "c3: plan updated: 1 todos (0 completed, 1 in progress, 0 pending)"}
	if diff := cmp.Diff(wantMsgs, toolMessages(sc.requests())); diff != "" {
		t.Errorf("tool messages (-want +got):\n%s", diff)
	}
	l := r.log(sid)
	wantTypes := []string{"assistant/message", "tool/call", "tool/call", "tool/call", "tool/result", "tool/result", "tool/result", "step/end", "step/start"}
	got := types(l)
	start := 0
	for i, typ := range got {
		if typ == "assistant/message" {
			start = i
			break
		}
	}
	if diff := cmp.Diff(wantTypes, got[start:start+len(wantTypes)]); diff != "" {
		t.Errorf("event types after the first assistant/message (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]toolCallData{{Turn: 1, Step: 1, CallID: "c1", Name: "write_file", Arguments: `{"content":"x","path":"a.txt"}`}}, data[toolCallData](t, l, "tool/call")[:1]); diff != "" {
		t.Errorf("tool/call (-want +got):\n%s", diff)
	}
}

// memFS is a client-side file system for fs/* requests.
type memFS struct {
	mu    sync.Mutex
	files map[string]string
	calls []string
}

func (m *memFS) client() *fakeClient {
	return &fakeClient{
		ReadTextFileFunc: func(ctx context.Context, p acp.ReadTextFileRequest) (acp.ReadTextFileResponse, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.calls = append(m.calls, fmt.Sprintf("read %s line=%v limit=%v", filepath.Base(p.Path), deref(p.Line), deref(p.Limit)))
			content, ok := m.files[p.Path]
			if !ok {
				return acp.ReadTextFileResponse{}, acp.NewInvalidParams(map[string]any{"error": "no such file"})
			}
			return acp.ReadTextFileResponse{Content: content}, nil
		},
		WriteTextFileFunc: func(ctx context.Context, p acp.WriteTextFileRequest) (acp.WriteTextFileResponse, error) {
			m.mu.Lock()
			defer m.mu.Unlock()
			m.calls = append(m.calls, "write "+filepath.Base(p.Path))
			m.files[p.Path] = p.Content
			return acp.WriteTextFileResponse{}, nil
		},
	}
}

func deref(p *int) any {
	if p == nil {
		return "nil"
	}
	return *p
}

func TestFileToolsUseClientFS(t *testing.T) {
	cwd := t.TempDir()
	fs := &memFS{files: map[string]string{filepath.Join(cwd, "a.txt"): "one\ntwo\n"}}
	sc := newScript(
		use(call("c1", "read_file", map[string]any{"path": "a.txt", "offset": 2, "limit": 1}),
			call("c2", "edit_file", map[string]any{"path": "a.txt", "old_string": "two", "new_string": "2"}),
			call("c3", "write_file", map[string]any{"path": "b.txt", "content": "new"}),
			call("c4", "read_file", map[string]any{"path": "missing.txt"})),
		say("done"))
	r := newRigAt(t, sc.provider(), fs.client(), nil, cwd)
	sid := r.session(acp.ClientCapabilities{Fs: acp.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
	wantCalls := []string{"read a.txt line=2 limit=1", "read a.txt line=nil limit=nil", "write a.txt", "write b.txt", "read missing.txt line=nil limit=nil"}
	if diff := cmp.Diff(wantCalls, fs.calls); diff != "" {
		t.Errorf("client fs calls (-want +got):\n%s", diff)
	}
	wantFiles := map[string]string{filepath.Join(cwd, "a.txt"): "one\n2\n", filepath.Join(cwd, "b.txt"): "new"}
	if diff := cmp.Diff(wantFiles, fs.files); diff != "" {
		t.Errorf("client files (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(cwd, "b.txt")); err == nil {
		t.Error("write_file wrote the local disk although the client offers fs/write_text_file")
	}
	msgs := toolMessages(sc.requests())
	if len(msgs) != 4 || msgs[0] != "c1: one\ntwo\n" || !strings.HasPrefix(msgs[3], "c4: read missing.txt: ") {
		t.Errorf("tool messages = %q", msgs)
	}
}

// fakeTerminal serves terminal/* requests; wait decides how
// wait_for_exit answers.
type fakeTerminal struct {
	mu    sync.Mutex
	calls []string
	wait  func(ctx context.Context) (acp.WaitForTerminalExitResponse, error)
}

func (f *fakeTerminal) record(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
}

func (f *fakeTerminal) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (f *fakeTerminal) client() *fakeClient {
	return &fakeClient{
		CreateTerminalFunc: func(ctx context.Context, p acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
			f.record(fmt.Sprintf("create %s %q limit=%d", p.Command, p.Args, *p.OutputByteLimit))
			return acp.CreateTerminalResponse{TerminalId: "term-1"}, nil
		},
		WaitForTerminalExitFunc: func(ctx context.Context, p acp.WaitForTerminalExitRequest) (acp.WaitForTerminalExitResponse, error) {
			f.record("wait " + p.TerminalId)
			return f.wait(ctx)
		},
		KillTerminalFunc: func(ctx context.Context, p acp.KillTerminalRequest) (acp.KillTerminalResponse, error) {
			f.record("kill " + p.TerminalId)
			return acp.KillTerminalResponse{}, nil
		},
		TerminalOutputFunc: func(ctx context.Context, p acp.TerminalOutputRequest) (acp.TerminalOutputResponse, error) {
			f.record("output " + p.TerminalId)
			return acp.TerminalOutputResponse{Output: "hi\n"}, nil
		},
		ReleaseTerminalFunc: func(ctx context.Context, p acp.ReleaseTerminalRequest) (acp.ReleaseTerminalResponse, error) {
			f.record("release " + p.TerminalId)
			return acp.ReleaseTerminalResponse{}, nil
		},
	}
}

func TestBashUsesClientTerminal(t *testing.T) {
	type testCase struct {
		name      string
		wait      func(ctx context.Context) (acp.WaitForTerminalExitResponse, error)
		timeoutMs int
		want      toolResultData
		wantCalls []string
	}
	create := `create bash ["-c" "echo hi"] limit=262144`
	for _, tc := range []testCase{
		{name: "exit 0", wait: func(context.Context) (acp.WaitForTerminalExitResponse, error) {
			return acp.WaitForTerminalExitResponse{ExitCode: acp.Ptr(0)}, nil
		}, want: toolResultData{Content: "hi\n"}, wantCalls: []string{create, "wait term-1", "output term-1", "release term-1"}},
		{name: "exit 2", wait: func(context.Context) (acp.WaitForTerminalExitResponse, error) {
			return acp.WaitForTerminalExitResponse{ExitCode: acp.Ptr(2)}, nil
		}, want: toolResultData{Content: "hi\n\n[exit code 2]", Error: true}, wantCalls: []string{create, "wait term-1", "output term-1", "release term-1"}},
		{name: "timeout", timeoutMs: 50, wait: func(ctx context.Context) (acp.WaitForTerminalExitResponse, error) {
			<-ctx.Done()
			return acp.WaitForTerminalExitResponse{}, ctx.Err()
		}, want: toolResultData{Content: "hi\n\n[timed out after 50ms]", Error: true}, wantCalls: []string{create, "wait term-1", "kill term-1", "output term-1", "release term-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := &fakeTerminal{wait: tc.wait}
			args := map[string]any{"command": "echo hi"}
			if tc.timeoutMs > 0 {
				args["timeoutMs"] = tc.timeoutMs
			}
			sc := newScript(use(call("c1", "bash", args)), say("done"))
			r := newRig(t, sc.provider(), term.client(), nil)
			sid := r.session(acp.ClientCapabilities{Terminal: true})
			got := runOneTool(t, r, sid, sc)
			tc.want.Turn, tc.want.Step, tc.want.CallID = 1, 1, "c1"
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("tool/result (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantCalls, term.recorded()); diff != "" {
				t.Errorf("terminal calls (-want +got):\n%s", diff)
			}
			if !slices.Contains(r.client.summary(), sid+" tool_call_update c1 terminal:term-1") {
				t.Errorf("no tool_call_update embedding the terminal in %q", r.client.summary())
			}
		})
	}
}

func TestCancelDuringClientTerminal(t *testing.T) {
	waiting := make(chan struct{})
	term := &fakeTerminal{wait: func(ctx context.Context) (acp.WaitForTerminalExitResponse, error) {
		close(waiting)
		<-ctx.Done()
		return acp.WaitForTerminalExitResponse{}, ctx.Err()
	}}
	sc := newScript(use(call("c1", "bash", map[string]any{"command": "echo hi"})))
	r := newRig(t, sc.provider(), term.client(), nil)
	sid := r.session(acp.ClientCapabilities{Terminal: true})
	r.cancelWhen(sid, func() { <-waiting })
	calls := term.recorded()
	if !slices.Contains(calls, "kill term-1") || calls[len(calls)-1] != "release term-1" {
		t.Errorf("terminal calls = %q, want a kill and a final release", calls)
	}
	l := r.log(sid)
	if diff := cmp.Diff([]toolResultData{{Turn: 1, Step: 1, CallID: "c1", Content: "cancelled", Error: true}}, data[toolResultData](t, l, "tool/result")); diff != "" {
		t.Errorf("tool/result (-want +got):\n%s", diff)
	}
}

func TestCancelDuringLocalBashKillsTheProcessGroup(t *testing.T) {
	cmd := "sleep 300 & echo $! > bg.pid; echo $$ > sh.pid; wait"
	sc := newScript(use(call("c1", "bash", map[string]any{"command": cmd})), say("never"))
	r := newRig(t, sc.provider(), nil, nil)
	sid := r.session(acp.ClientCapabilities{})
	var pids []int
	r.cancelWhen(sid, func() {
		pids = []int{waitForPid(t, filepath.Join(r.cwd, "sh.pid")), waitForPid(t, filepath.Join(r.cwd, "bg.pid"))}
	})
	for _, pid := range pids {
		if !eventually(func() bool { return !alive(pid) }) {
			t.Errorf("process %d still runs after cancel", pid)
		}
	}
	l := r.log(sid)
	checkTurnEnds(t, l, endReason{Kind: "aborted", By: "user"})
	if n := len(sc.requests()); n != 1 {
		t.Errorf("%d model calls, want 1 (no call after cancel)", n)
	}
}

// TestSymlinkOutOfCwdRefused: a symbolic link inside the cwd may not carry
// a file tool outside it, even a dangling one (writing through it would
// create its target); a link that stays inside is fine, dangling or not.
func TestSymlinkOutOfCwdRefused(t *testing.T) {
	outside := t.TempDir()
	seed(t, outside, map[string]string{"secret.txt": "s3cret\n"})
	type testCase struct {
		name  string
		call  model.ToolCall
		want  string
		isErr bool
		files map[string]string // files in the cwd afterwards
	}
	refused := func(p string) string { return fmt.Sprintf("path %q is outside the working directory", p) }
	for _, tc := range []testCase{
		{name: "read through a link out", call: call("c1", "read_file", map[string]any{"path": "out/secret.txt"}), want: refused("out/secret.txt"), isErr: true},
		{name: "write through a link out", call: call("c1", "write_file", map[string]any{"path": "out/new.txt", "content": "x"}), want: refused("out/new.txt"), isErr: true},
		{name: "write a new dir through a link out", call: call("c1", "write_file", map[string]any{"path": "out/d/new.txt", "content": "x"}), want: refused("out/d/new.txt"), isErr: true},
		{name: "write through a dangling relative link out", call: call("c1", "write_file", map[string]any{"path": "dang", "content": "x"}), want: refused("dang"), isErr: true},
		{name: "write through a dangling absolute link out", call: call("c1", "write_file", map[string]any{"path": "dangabs", "content": "x"}), want: refused("dangabs"), isErr: true},
		{name: "edit through a dangling link out", call: call("c1", "edit_file", map[string]any{"path": "dang", "old_string": "a", "new_string": "b"}), want: refused("dang"), isErr: true},
		{name: "read through a link inside", call: call("c1", "read_file", map[string]any{"path": "in/a.txt"}), want: "inside\n"},
		{name: "write through a dangling link inside", call: call("c1", "write_file", map[string]any{"path": "indang", "content": "x"}), want: "wrote 1 bytes to indang",
			files: map[string]string{"sub/new.txt": "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cwd := t.TempDir()
			seed(t, cwd, map[string]string{"sub/a.txt": "inside\n"})
			links := map[string]string{
				"out":     outside,
				"in":      filepath.Join(cwd, "sub"),
				"dang":    "../outside.txt",
				"dangabs": filepath.Join(outside, "dangabs.txt"),
				"indang":  "sub/new.txt",
			}
			for name, target := range links {
				if err := os.Symlink(target, filepath.Join(cwd, name)); err != nil {
					t.Fatal(err)
				}
			}
			sc := newScript(use(tc.call), say("ok"))
			r := newRigAt(t, sc.provider(), nil, nil, cwd)
			sid := r.session(acp.ClientCapabilities{})
			got := runOneTool(t, r, sid, sc)
			want := toolResultData{Turn: 1, Step: 1, CallID: "c1", Content: tc.want, Error: tc.isErr}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("tool/result (-want +got):\n%s", diff)
			}
			for _, p := range []string{filepath.Join(outside, "new.txt"), filepath.Join(outside, "d"), filepath.Join(outside, "dangabs.txt"), filepath.Join(cwd, "..", "outside.txt")} {
				if _, err := os.Lstat(p); err == nil {
					t.Errorf("%s was created outside the working directory", p)
				}
			}
			checkFiles(t, cwd, tc.files)
		})
	}
}
