package tool_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/cassette"
	"github.com/acpsnap/acpsnap/internal/cassette/tool"
)

// fake is a tool body that counts its runs.
type fake struct {
	runs  atomic.Int32
	value string
	err   error
}

func (f *fake) body(context.Context) (json.RawMessage, error) {
	f.runs.Add(1)
	if f.err != nil {
		return nil, f.err
	}
	return json.RawMessage(f.value), nil
}

type step struct {
	path, name, args string
}

// recordSteps records steps (each tool returning {"k": "<name>"}) and
// returns the file.
func recordSteps(t *testing.T, include []string, steps []step) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tools.cassette.jsonl")
	r, err := tool.NewRecorder(file, include)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range steps {
		f := &fake{value: `{ "k": "` + s.name + `" }`}
		if _, err := r.Call(context.Background(), s.path, s.name, json.RawMessage(s.args), f.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return file
}

func play(t *testing.T, file string) *tool.Player {
	t.Helper()
	p, err := tool.NewPlayer(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestIncludeRefuses(t *testing.T) {
	cases := map[string][]string{
		"include: empty":                    nil,
		"include[1]: blank pattern":         {"a", " "},
		`include[2]: duplicate pattern "a"`: {"a", "b*", "a"},
	}
	for want, patterns := range cases {
		if _, err := tool.NewInclude(patterns); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("NewInclude(%q) = %v, want %s", patterns, err, want)
		}
		if _, err := tool.NewRecorder(filepath.Join(t.TempDir(), "c.jsonl"), patterns); err == nil {
			t.Errorf("NewRecorder(%q) accepted", patterns)
		}
	}
}

func TestIncludeMatch(t *testing.T) {
	inc, err := tool.NewInclude([]string{"weather_lookup", "mcp_*_read", "*fetch", "a*b*c"})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, n := range []string{"weather_lookup", "weather", "mcp_fs_read", "mcp__read", "mcp_fs_write", "http_fetch", "fetch", "fetcher", "abc", "aXbYc", "aXbY", "acb"} {
		got[n] = inc.Match(n)
	}
	want := map[string]bool{"weather_lookup": true, "weather": false, "mcp_fs_read": true, "mcp__read": true, "mcp_fs_write": false,
		"http_fetch": true, "fetch": true, "fetcher": false, "abc": true, "aXbYc": true, "aXbY": false, "acb": false}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Match (-want +got):\n%s", diff)
	}
}

func TestReplayNeverRunsTheBody(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tools.cassette.jsonl")
	r, err := tool.NewRecorder(file, []string{"weather"})
	if err != nil {
		t.Fatal(err)
	}
	ok := &fake{value: `{"temp": 21, "city": "武汉"}`}
	bad := &fake{err: errors.New("weather: 429 too many requests")}
	v, err := r.Call(context.Background(), "", "weather", json.RawMessage(`{"city":"武汉","unit":"c"}`), ok.body)
	if err != nil || string(v) != `{"city":"武汉","temp":21}` {
		t.Fatalf("record call 0 = %s, %v", v, err)
	}
	if _, err := r.Call(context.Background(), "", "weather", json.RawMessage(`{"city":"x"}`), bad.body); err != bad.err {
		t.Fatalf("record call 1 err = %v, want the body's", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(file + cassette.PartialSuffix); !os.IsNotExist(err) {
		t.Errorf("partial left after publishing: %v", err)
	}

	p := play(t, file)
	never := &fake{value: `"real"`}
	v, err = p.Call(context.Background(), "root", "weather", json.RawMessage(`{ "unit": "c", "city": "武汉" }`), never.body)
	if err != nil || string(v) != `{"city":"武汉","temp":21}` {
		t.Errorf("replay call 0 = %s, %v", v, err)
	}
	_, err = p.Call(context.Background(), "root", "weather", json.RawMessage(`{"city":"x"}`), never.body)
	var re *tool.RecordedError
	if !errors.As(err, &re) || re.Message != "weather: 429 too many requests" {
		t.Errorf("replay call 1 err = %#v", err)
	}
	if err := p.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if n := never.runs.Load(); n != 0 || ok.runs.Load() != 1 || bad.runs.Load() != 1 {
		t.Errorf("body runs: replay %d (want 0), record %d+%d (want 1+1)", n, ok.runs.Load(), bad.runs.Load())
	}
}

func TestUnselectedPassThrough(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.jsonl")
	r, err := tool.NewRecorder(file, []string{"fetch"})
	if err != nil {
		t.Fatal(err)
	}
	other := &fake{value: `{"b":1,"a":2}`}
	if v, _ := r.Call(context.Background(), "", "bash", nil, other.body); string(v) != `{"b":1,"a":2}` {
		t.Errorf("unselected value changed: %s", v)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	p := play(t, file)
	if v, _ := p.Call(context.Background(), "", "bash", nil, other.body); string(v) != `{"b":1,"a":2}` {
		t.Errorf("unselected replay value: %s", v)
	}
	if err := p.Close(); err != nil {
		t.Error(err)
	}
	if other.runs.Load() != 2 {
		t.Errorf("unselected body ran %d times, want 2", other.runs.Load())
	}
	f, err := cassette.ReadFile(file, tool.Kind())
	if err != nil || len(f.Frames) != 0 {
		t.Errorf("unselected call recorded: %v, %d frames", err, len(f.Frames))
	}
}

func TestMismatchPoisons(t *testing.T) {
	steps := []step{{"", "a", `{"x":[1,2]}`}, {"", "a", `{"x":[3]}`}, {"root/task-1~0", "b", `{}`}}
	cases := []struct {
		name   string
		second step
		reason string
	}{
		{"array order", step{"", "a", `{"x":[2,1]}`}, "call 1 (root, a): arguments differ (sha256:"},
		{"argument value", step{"", "a", `{"x":[4]}`}, "arguments differ"},
		{"tool", step{"", "b", `{"x":[3]}`}, "call 1 (root, b): tool differs (recorded a)"},
		{"other path", step{"root/task-1~0", "a", `{"x":[3]}`}, "call 0 (root/task-1~0, a): tool differs (recorded b)"},
		{"unrecorded path", step{"root/task-2~0", "a", `{"x":[3]}`}, "call 0 (root/task-2~0, a): an extra call: the cassette has 0 at this path"},
		{"order", step{"", "a", `{"x":[1,2]}`}, "call 1 (root, a): arguments differ"},
		{"not JSON", step{"", "a", `{"x":`}, "arguments are not JSON"},
	}
	file := recordSteps(t, []string{"a", "b"}, steps)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := play(t, file)
			never := &fake{value: `1`}
			ctx := context.Background()
			if _, err := p.Call(ctx, steps[0].path, steps[0].name, json.RawMessage(steps[0].args), never.body); err != nil {
				t.Fatal(err)
			}
			_, err := p.Call(ctx, c.second.path, c.second.name, json.RawMessage(c.second.args), never.body)
			if !errors.Is(err, tool.ErrMismatch) || !strings.Contains(err.Error(), "CASSETTE_MISMATCH: ") || !strings.Contains(err.Error(), c.reason) {
				t.Errorf("mismatch err = %v, want %q", err, c.reason)
			}
			// The right call now fails too: the player is poisoned.
			_, err = p.Call(ctx, steps[2].path, steps[2].name, json.RawMessage(steps[2].args), never.body)
			var me *tool.MismatchError
			if !errors.As(err, &me) || me.Cause == nil || me.Code() != tool.Code {
				t.Errorf("after poison err = %v", err)
			}
			cerr := p.Close()
			if !errors.Is(cerr, tool.ErrMismatch) || !strings.Contains(cerr.Error(), "recorded call(s) not consumed (the first: call 1 (root, a))") {
				t.Errorf("Close = %v", cerr)
			}
			if strings.Contains(err.Error()+cerr.Error(), `"x"`) {
				t.Errorf("diagnostic carries arguments: %v", err)
			}
			if never.runs.Load() != 0 {
				t.Errorf("body ran %d times in replay", never.runs.Load())
			}
		})
	}
}

func TestExtraAndUnconsumed(t *testing.T) {
	file := recordSteps(t, []string{"a"}, []step{{"", "a", `{}`}, {"", "a", `{"n":2}`}})
	never := &fake{value: `1`}
	ctx := context.Background()

	p := play(t, file)
	p.Call(ctx, "", "a", nil, never.body)
	if err := p.Close(); err == nil || !strings.Contains(err.Error(), "1 recorded call(s) not consumed (the first: call 1 (root, a))") {
		t.Errorf("unconsumed: Close = %v", err)
	}

	p = play(t, file)
	p.Call(ctx, "", "a", json.RawMessage(`{}`), never.body)
	p.Call(ctx, "", "a", json.RawMessage(`{"n":2}`), never.body)
	if _, err := p.Call(ctx, "", "a", nil, never.body); !errors.Is(err, tool.ErrMismatch) || !strings.Contains(err.Error(), "an extra call: the cassette has 2") {
		t.Errorf("extra call err = %v", err)
	}
	if err := p.Close(); err == nil || !strings.Contains(err.Error(), "1 extra call(s) beyond the 2 recorded") {
		t.Errorf("extra: Close = %v", err)
	}
	if never.runs.Load() != 0 {
		t.Errorf("body ran %d times in replay", never.runs.Load())
	}
}

// TestConcurrentPairByHandle: A starts, B starts, B ends, A ends; each
// gets its own result, in record and in replay.
func TestConcurrentPairByHandle(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.jsonl")
	r, err := tool.NewRecorder(file, []string{"slow"})
	if err != nil {
		t.Fatal(err)
	}
	aStarted, bDone, aDone := make(chan struct{}), make(chan struct{}), make(chan json.RawMessage)
	go func() {
		v, _ := r.Call(context.Background(), "", "slow", json.RawMessage(`{"id":"A"}`), func(context.Context) (json.RawMessage, error) {
			close(aStarted)
			<-bDone
			return json.RawMessage(`"result A"`), nil
		})
		aDone <- v
	}()
	<-aStarted
	vb, _ := r.Call(context.Background(), "", "slow", json.RawMessage(`{"id":"B"}`), func(context.Context) (json.RawMessage, error) {
		return json.RawMessage(`"result B"`), nil
	})
	close(bDone)
	va := <-aDone
	if string(va) != `"result A"` || string(vb) != `"result B"` {
		t.Fatalf("record: A = %s, B = %s", va, vb)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := cassette.ReadFile(file, tool.Kind())
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, fr := range f.Frames {
		order = append(order, fr.Type+" "+string(fr.Body[:len(`{"args":{"id":"A"}`)]))
	}
	want := []string{`call/start {"args":{"id":"A"}`, `call/start {"args":{"id":"B"}`, `call/result {"ordinal":1,"path`, `call/result {"ordinal":0,"path`}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("frames (-want +got):\n%s", diff)
	}
	p := play(t, file)
	va, _ = p.Call(context.Background(), "", "slow", json.RawMessage(`{"id":"A"}`), nil)
	vb, _ = p.Call(context.Background(), "", "slow", json.RawMessage(`{"id":"B"}`), nil)
	if string(va) != `"result A"` || string(vb) != `"result B"` || p.Close() != nil {
		t.Errorf("replay: A = %s, B = %s", va, vb)
	}
}

func TestUnfinishedCallKeepsPartial(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.jsonl")
	r, err := tool.NewRecorder(file, []string{"hang"})
	if err != nil {
		t.Fatal(err)
	}
	started, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		r.Call(context.Background(), "", "hang", nil, func(context.Context) (json.RawMessage, error) {
			close(started)
			<-release
			return json.RawMessage(`1`), nil
		})
	}()
	<-started
	if err := r.Close(); err == nil || !strings.Contains(err.Error(), "1 call(s) never finished: call 0 (root)") {
		t.Errorf("Close = %v", err)
	}
	close(release)
	<-done
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("published: %v", err)
	}
	if _, err := os.Stat(file + cassette.PartialSuffix); err != nil {
		t.Errorf("partial not kept: %v", err)
	}
	if _, err := tool.NewRecorder(file, []string{"hang"}); err == nil || !strings.Contains(err.Error(), ".partial: exists") {
		t.Errorf("record over a partial: %v", err)
	}
	if _, err := tool.NewPlayer(file, nil); err == nil {
		t.Error("played an unpublished cassette")
	}
}

func TestPlayerRefuses(t *testing.T) {
	file := recordSteps(t, []string{"a"}, []step{{"", "a", `{}`}})
	if _, err := tool.NewPlayer(file, []string{"a", "b"}); err == nil || !strings.Contains(err.Error(), "differs from the recorded") {
		t.Errorf("other include: %v", err)
	}
	b, _ := os.ReadFile(file)
	damaged := filepath.Join(t.TempDir(), "d.jsonl")
	os.WriteFile(damaged, b[:len(b)-1], 0o644)
	if _, err := tool.NewPlayer(damaged, nil); err == nil || !strings.Contains(err.Error(), "truncated") {
		t.Errorf("truncated: %v", err)
	}
	if _, err := tool.Open(tool.Config{Mode: "rewind"}); err == nil {
		t.Error("unknown mode accepted")
	}
}

// TestKindChecksPairing writes frames that are each valid but do not pair.
func TestKindChecksPairing(t *testing.T) {
	startBody := func(ord int) map[string]any {
		return map[string]any{"ordinal": ord, "path": "root", "tool": "a", "args": map[string]any{}}
	}
	resultBody := func(ord int) map[string]any { return map[string]any{"ordinal": ord, "path": "root", "value": 1} }
	cases := []struct {
		name   string
		frames [][2]any
		want   string
	}{
		{"skipped ordinal", [][2]any{{tool.TypeStart, startBody(1)}}, "frame 1: $.body.ordinal: 1, want 0"},
		{"result before start", [][2]any{{tool.TypeResult, resultBody(0)}}, "frame 1: $.body: a result for call 0 at root, which is not running"},
		{"two results", [][2]any{{tool.TypeStart, startBody(0)}, {tool.TypeResult, resultBody(0)}, {tool.TypeResult, resultBody(0)}}, "frame 3: $.body: a result for call 0 at root, which is not running"},
		{"result at another path", [][2]any{{tool.TypeStart, startBody(0)}, {tool.TypeResult, map[string]any{"ordinal": 0, "path": "root/x~0", "value": 1}}}, "frame 2: $.body: a result for call 0 at root/x~0, which is not running"},
		{"never finished", [][2]any{{tool.TypeStart, startBody(0)}}, "frame 1: call 0 at root never finished"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "c.jsonl")
			w, err := cassette.Create(file, tool.Kind(), map[string]any{"include": []string{"a"}})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range c.frames {
				if err := w.Append(f[0].(string), f[1]); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Complete(); err != nil {
				t.Fatal(err)
			}
			if _, err := cassette.ReadFile(file, tool.Kind()); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
}

func TestBodySchemas(t *testing.T) {
	w, err := cassette.Create(filepath.Join(t.TempDir(), "c.jsonl"), tool.Kind(), map[string]any{"include": []string{"a"}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	cases := []struct {
		typ  string
		body map[string]any
		want string
	}{
		{tool.TypeStart, map[string]any{"ordinal": 0, "path": "root", "tool": "a"}, "$.args: missing"},
		{tool.TypeStart, map[string]any{"ordinal": 0, "path": "root", "tool": "", "args": 1}, "$.tool: want a non-empty string"},
		{tool.TypeStart, map[string]any{"ordinal": 1.5, "path": "root", "tool": "a", "args": 1}, "$.ordinal: want a non-negative integer"},
		{tool.TypeStart, map[string]any{"ordinal": 0, "path": "root", "tool": "a", "args": 1, "zz": 1}, "$.zz: unknown member"},
		{tool.TypeResult, map[string]any{"ordinal": 0, "path": "root"}, "$: want exactly one of value and error"},
		{tool.TypeResult, map[string]any{"ordinal": 0, "path": "root", "value": 1, "error": map[string]any{"message": ""}}, "$: want exactly one of value and error"},
		{tool.TypeResult, map[string]any{"ordinal": 0, "path": "root", "error": map[string]any{}}, "$.error.message: missing"},
		{tool.TypeResult, map[string]any{"ordinal": 0, "value": 1}, "$.path: missing"},
	}
	for _, c := range cases {
		if err := w.Append(c.typ, c.body); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Append(%s, %v) = %v, want %q", c.typ, c.body, err, c.want)
		}
	}
	if _, err := cassette.Create(filepath.Join(t.TempDir(), "d.jsonl"), tool.Kind(), map[string]any{"include": []string{}}); err == nil || !strings.Contains(err.Error(), "$.include: empty") {
		t.Errorf("empty include policy: %v", err)
	}
}

func TestUnrecordableResultKeepsPartial(t *testing.T) {
	file := filepath.Join(t.TempDir(), "c.jsonl")
	r, err := tool.NewRecorder(file, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	bad := &fake{value: `{"not json"`}
	if _, err := r.Call(context.Background(), "", "a", nil, bad.body); err == nil || !strings.Contains(err.Error(), "call 0 (root): the result is not JSON") {
		t.Errorf("Call = %v", err)
	}
	if err := r.Close(); err == nil || !strings.Contains(err.Error(), "not published (the .partial is kept)") {
		t.Errorf("Close = %v", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("published: %v", err)
	}
	if _, err := os.Stat(file + cassette.PartialSuffix); err != nil {
		t.Errorf("partial not kept: %v", err)
	}
}

func TestRecorderNeverOverwrites(t *testing.T) {
	file := recordSteps(t, []string{"a"}, []step{{"", "a", `{}`}})
	before, _ := os.ReadFile(file)
	if _, err := tool.NewRecorder(file, []string{"a"}); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("NewRecorder over a cassette: %v", err)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Error("cassette changed")
	}
}

// TestSubagentPathsInterleave: calls at different paths (concurrent
// subagents) keep their own ordinals, so replay does not depend on how
// their calls interleave.
func TestSubagentPathsInterleave(t *testing.T) {
	file := recordSteps(t, []string{"a"}, []step{{"root/task-1~0", "a", `{"n":1}`}, {"root/task-2~0", "a", `{"n":2}`}, {"root/task-1~0", "a", `{"n":3}`}})
	p := play(t, file)
	for _, s := range []step{{"root/task-2~0", "a", `{"n":2}`}, {"root/task-1~0", "a", `{"n":1}`}, {"root/task-1~0", "a", `{"n":3}`}} {
		if v, err := p.Call(context.Background(), s.path, s.name, json.RawMessage(s.args), nil); err != nil || string(v) != `{"k":"a"}` {
			t.Errorf("%v: %s, %v", s, v, err)
		}
	}
	if err := p.Close(); err != nil {
		t.Error(err)
	}
}
