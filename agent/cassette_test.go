package agent

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	toolcassette "github.com/acpsnap/acpsnap/cassette/tool"
	"github.com/acpsnap/acpsnap/model"
)

// withCassette opens a tool cassette in mode at file selecting include and
// returns the config modifier that installs it, and the cassette.
func withCassette(t *testing.T, mode toolcassette.Mode, file string, include ...string) (func(*Config), *ToolCassette) {
	t.Helper()
	c, err := toolcassette.Open(toolcassette.Config{Mode: mode, File: file, Include: include})
	if err != nil {
		t.Fatal(err)
	}
	inc, err := toolcassette.NewInclude(include)
	if err != nil {
		t.Fatal(err)
	}
	tc := &ToolCassette{Cassette: c, Include: inc}
	return func(cfg *Config) { cfg.Tools = tc }, tc
}

// runOnce serves one prompt whose model calls calls then says "done", and
// returns the tool results the model saw.
func runOnce(t *testing.T, mod func(*Config), client *fakeClient, caps acp.ClientCapabilities, calls ...model.ToolCall) []string {
	t.Helper()
	var tcs []attempt
	for _, c := range calls {
		tcs = append(tcs, use(c))
	}
	sc := newScript(append(tcs, say("done"))...)
	r := newRig(t, sc.provider(), client, mod)
	sid := r.session(caps)
	r.mustPrompt(sid, "go", acp.StopReasonEndTurn)
	if err := r.close(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	return toolMessages(sc.requests())
}

// TestFetchRecordedThenReplayedOffline: record fetches a local server
// once; replay, with the server gone, serves the same result text and
// never runs the body (the server saw exactly one request, in record).
func TestFetchRecordedThenReplayedOffline(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("sunny, 21°C"))
	}))
	file := filepath.Join(t.TempDir(), "tools.cassette.jsonl")
	c := call("f1", "fetch", map[string]string{"url": srv.URL + "/weather"})

	mod, rec := withCassette(t, toolcassette.Record, file, "fetch")
	recorded := runOnce(t, mod, nil, acp.ClientCapabilities{}, c)
	if err := rec.Cassette.Close(); err != nil {
		t.Fatalf("record close: %v", err)
	}
	srv.Close()

	mod, play := withCassette(t, toolcassette.Replay, file, "fetch")
	replayed := runOnce(t, mod, nil, acp.ClientCapabilities{}, c)
	if err := play.Cassette.Close(); err != nil {
		t.Fatalf("replay close: %v", err)
	}
	want := []string{"f1: HTTP 200 (text/plain)\n\nsunny, 21°C"}
	if diff := cmp.Diff(want, recorded); diff != "" {
		t.Errorf("recorded result (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(recorded, replayed); diff != "" {
		t.Errorf("replayed result (-record +replay):\n%s", diff)
	}
	if n := hits.Load(); n != 1 {
		t.Errorf("the server saw %d requests, want 1 (record only)", n)
	}
}

// TestSelectedBashRunsLocallyAndReplaysWithoutSideEffect: a selected bash
// never goes to the client terminal (its body is the whole tool), and in
// replay the command's side effect does not happen.
func TestSelectedBashRunsLocallyAndReplaysWithoutSideEffect(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	file := filepath.Join(dir, "tools.cassette.jsonl")
	terminals := 0
	client := &fakeClient{CreateTerminalFunc: func(context.Context, acp.CreateTerminalRequest) (acp.CreateTerminalResponse, error) {
		terminals++
		return acp.CreateTerminalResponse{}, errors.New("no terminal here")
	}}
	caps := acp.ClientCapabilities{Terminal: true}
	c := call("b1", "bash", map[string]string{"command": "echo ran >> " + marker + "; echo hello"})

	mod, rec := withCassette(t, toolcassette.Record, file, "bash")
	recorded := runOnce(t, mod, client, caps, c)
	if err := rec.Cassette.Close(); err != nil {
		t.Fatalf("record close: %v", err)
	}
	if err := os.Remove(marker); err != nil {
		t.Fatalf("record did not run the command: %v", err)
	}
	mod, play := withCassette(t, toolcassette.Replay, file, "bash")
	replayed := runOnce(t, mod, client, caps, c)
	if err := play.Cassette.Close(); err != nil {
		t.Fatalf("replay close: %v", err)
	}
	if diff := cmp.Diff([]string{"b1: hello\n"}, recorded); diff != "" {
		t.Errorf("recorded (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(recorded, replayed); diff != "" {
		t.Errorf("replayed (-record +replay):\n%s", diff)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("replay ran the command: %s exists (%v)", marker, err)
	}
	if terminals != 0 {
		t.Errorf("%d terminal/create requests, want 0 for a selected bash", terminals)
	}
}

// TestReplayMismatchPoisons: a changed argument is CASSETTE_MISMATCH, the
// next selected call fails too without running, and Close reports it.
func TestReplayMismatchPoisons(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir, map[string]string{"a.txt": "A", "b.txt": "B"})
	file := filepath.Join(t.TempDir(), "tools.cassette.jsonl")
	read := func(id, p string) model.ToolCall { return call(id, "read_file", map[string]string{"path": p}) }

	run := func(mod func(*Config), calls ...model.ToolCall) []string {
		var tcs []attempt
		for _, c := range calls {
			tcs = append(tcs, use(c))
		}
		sc := newScript(append(tcs, say("done"))...)
		r := newRigAt(t, sc.provider(), nil, mod, dir)
		r.mustPrompt(r.session(acp.ClientCapabilities{}), "go", acp.StopReasonEndTurn)
		r.close()
		return toolMessages(sc.requests())
	}
	mod, rec := withCassette(t, toolcassette.Record, file, "read_file")
	run(mod, read("r1", "a.txt"), read("r2", "b.txt"))
	if err := rec.Cassette.Close(); err != nil {
		t.Fatal(err)
	}
	mod, play := withCassette(t, toolcassette.Replay, file, "read_file")
	got := run(mod, read("r1", "b.txt"), read("r2", "b.txt"))
	err := play.Cassette.Close()
	if len(got) != 2 || !strings.Contains(got[0], "CASSETTE_MISMATCH") || !strings.Contains(got[0], "arguments differ") ||
		!strings.Contains(got[1], "poisoned") {
		t.Errorf("tool results = %q, want a mismatch then a poisoned refusal", got)
	}
	if !errors.Is(err, toolcassette.ErrMismatch) {
		t.Errorf("Close = %v, want CASSETTE_MISMATCH", err)
	}
}

// TestChildCallPaths: a child's calls are at root/task-N (N in spawn
// order), never at a call id.
func TestChildCallPaths(t *testing.T) {
	dir := t.TempDir()
	seed(t, dir, map[string]string{"a.txt": "A"})
	file := filepath.Join(t.TempDir(), "tools.cassette.jsonl")
	mod, rec := withCassette(t, toolcassette.Record, file, "read_file")
	sc := newScript(use(call("t1", "task", map[string]string{"description": "d", "prompt": "read"})), say("done")).
		route("t1", use(call("c1", "read_file", map[string]string{"path": "a.txt"})), say("A"))
	r := newRigAt(t, sc.provider(), nil, mod, dir)
	r.mustPrompt(r.session(acp.ClientCapabilities{}), "go", acp.StopReasonEndTurn)
	r.close()
	if err := rec.Cassette.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"path":"root/task-1"`) || strings.Contains(string(b), "t1") {
		t.Errorf("cassette does not place the child's call at root/task-1:\n%s", b)
	}
}
