package replay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// counter is a NewID seam: "1", "2", … Safe for concurrent use.
func counter() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return strconv.Itoa(n)
	}
}

var primaryHeader = sessionlog.Header{ID: "{{session:1}}", Cwd: "{{cwd}}"}

func childHeader(n, toolCall int) sessionlog.Header {
	return sessionlog.Header{ID: fmt.Sprintf("{{session:%d}}", n), Cwd: "{{cwd}}", DelegationDepth: 1,
		ParentSession: "{{session:1}}", Origin: "subagent", SpawnedBy: fmt.Sprintf("{{toolCall:%d}}", toolCall)}
}

// collect streams one call and returns what was emitted and the error.
func collect(p *Player, req StreamRequest) ([]model.Chunk, error) {
	var got []model.Chunk
	err := p.Stream(context.Background(), req, func(c model.Chunk) error {
		got = append(got, c)
		return nil
	})
	return got, err
}

func TestPlayerServes(t *testing.T) {
	dir := t.TempDir()
	script := Script{
		{Kind: KindChunks, Chunks: []model.Chunk{
			{Type: model.TextDelta, Text: "in {{cwd}} as {{session:1}}, not {{session:2}} nor {{message:1}}"},
			{Type: model.ToolCallDelta, Index: 1, ID: "{{toolCall:1}}", Name: "read", ArgumentsDelta: `{"path":"{{cwd}}/a"}`},
			{Type: model.ToolCallDelta, Index: 1, ID: "{{toolCall:1}}", ArgumentsDelta: `}`},
			{Type: model.ToolCallDelta, Index: 2, ID: "{{toolCall:2}}", Name: "read", ArgumentsDelta: `{}`},
			{Type: model.Finish, Reason: model.FinishToolCalls}}},
		{Kind: KindThrow, Chunks: []model.Chunk{{Type: model.TextDelta, Text: "again {{toolCall:1}}"}}, Message: "busy at {{cwd}}", Code: "UNAVAILABLE"},
		stopEntry("done"),
	}
	p, err := Load(Config{Primary: writeFixture(t, dir, "session.jsonl", primaryHeader, script), NewID: counter()})
	if err != nil {
		t.Fatal(err)
	}
	req := StreamRequest{SessionID: "sess-live", Cwd: "/live"}

	got, err := collect(p, req)
	want := []model.Chunk{
		{Type: model.TextDelta, Text: "in /live as sess-live, not {{session:2}} nor {{message:1}}"},
		{Type: model.ToolCallDelta, Index: 1, ID: "call_1", Name: "read", ArgumentsDelta: `{"path":"/live/a"}`},
		{Type: model.ToolCallDelta, Index: 1, ID: "call_1", ArgumentsDelta: `}`},
		{Type: model.ToolCallDelta, Index: 2, ID: "call_2", Name: "read", ArgumentsDelta: `{}`},
		{Type: model.Finish, Reason: model.FinishToolCalls},
	}
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("call 1 (-want +got):\n%s", diff)
	}

	got, err = collect(p, req)
	if diff := cmp.Diff([]model.Chunk{{Type: model.TextDelta, Text: "again call_1"}}, got); diff != "" {
		t.Errorf("throw prefix (-want +got):\n%s", diff)
	}
	var pe *model.ProviderError
	if !errors.As(err, &pe) || *pe != (model.ProviderError{Code: "UNAVAILABLE", Message: "busy at /live"}) {
		t.Errorf("throw error = %#v, want UNAVAILABLE", err)
	}

	if diff := cmp.Diff(agentenv.Report{Fixtures: []agentenv.FixtureReport{{Fixture: "session.jsonl", Served: 2, Left: 1}}}, p.Report()); diff != "" {
		t.Errorf("report after 2 calls (-want +got):\n%s", diff)
	}
	if _, err := collect(p, req); err != nil {
		t.Fatal(err)
	}
	_, err = collect(p, req)
	wantErr := "REPLAY: llmreplay: script exhausted: session.jsonl has 3 entries, model call 4 of session sess-live was not recorded; re-record the scenario"
	if !errors.As(err, &pe) || pe.Code != "REPLAY" || err.Error() != wantErr {
		t.Errorf("exhausted error = %v, want %s", err, wantErr)
	}
	wantReport := agentenv.Report{Fixtures: []agentenv.FixtureReport{{Fixture: "session.jsonl", Served: 3, Left: 0}}, Errors: []string{wantErr}}
	if diff := cmp.Diff(wantReport, p.Report()); diff != "" {
		t.Errorf("final report (-want +got):\n%s", diff)
	}
}

func TestPlayerHang(t *testing.T) {
	dir, cwd := t.TempDir(), t.TempDir()
	path := writeFixture(t, dir, "session.jsonl", primaryHeader, Script{stopEntry("x")})
	over := writeFile(t, dir, "replay.override.json", `{"patches":[{"at":0,"entry":{"kind":"hang","readyFile":"marks/ready"}}]}`)
	p, err := Load(Config{Primary: path, Override: over})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	req := StreamRequest{SessionID: "s", Cwd: cwd}
	emitted := make(chan model.Chunk, 1)
	done := make(chan error)
	go func() { done <- p.Stream(ctx, req, func(c model.Chunk) error { emitted <- c; return nil }) }()
	if diff := cmp.Diff(model.Chunk{Type: model.BlockStart, Index: 0, BlockType: model.BlockText}, <-emitted); diff != "" {
		t.Errorf("partial chunk (-want +got):\n%s", diff)
	}
	// A second call of the same session while the first hangs is an error.
	_, err = collect(p, req)
	wantErr := "llmreplay: session s: a second model call while one is in flight; the agent must not overlap the calls of one session (a side call in parallel with the turn, a title or a summary, needs a session and a log of its own)"
	if err == nil || err.Error() != wantErr {
		t.Errorf("overlapping call error = %v, want %s", err, wantErr)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("hang returned %v, want context.Canceled", err)
	}
	if _, err := os.Stat(filepath.Join(cwd, "marks", "ready")); err != nil {
		t.Errorf("ready file: %v", err)
	}
	want := agentenv.Report{Fixtures: []agentenv.FixtureReport{{Fixture: "session.jsonl", Served: 1, Left: 0}}, Errors: []string{wantErr}}
	if diff := cmp.Diff(want, p.Report()); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
}

func TestPlayerEmitError(t *testing.T) {
	dir := t.TempDir()
	p, err := Load(Config{Primary: writeFixture(t, dir, "session.jsonl", primaryHeader, Script{stopEntry("x"), stopEntry("y")})})
	if err != nil {
		t.Fatal(err)
	}
	stopErr := errors.New("client gone")
	req := StreamRequest{SessionID: "s"}
	if err := p.Stream(context.Background(), req, func(model.Chunk) error { return stopErr }); err != stopErr {
		t.Errorf("Stream = %v, want the emit error", err)
	}
	// The call counts as served and the session is free again.
	got, err := collect(p, req)
	if err != nil || got[1].Text != "y" {
		t.Errorf("next call = %v, %v; want entry 2", got, err)
	}
}

// TestPlayerSiblings streams two children spawned by the same model call
// concurrently, in both arrival orders: each binds to the fixture its own
// tool call spawned.
func TestPlayerSiblings(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{
		Primary: writeFixture(t, dir, "session.jsonl", primaryHeader, Script{toolEntry("{{toolCall:1}}", "{{toolCall:2}}"), stopEntry("both done")}),
		Children: []string{
			writeFixture(t, dir, "session.1.jsonl", childHeader(2, 2), Script{stopEntry("child of call 2 in {{cwd}}"), stopEntry("child of call 2 again")}),
			writeFixture(t, dir, "session.2.jsonl", childHeader(3, 1), Script{stopEntry("child of call 1, parent {{session:1}}")}),
		},
	}
	for _, reversed := range []bool{false, true} {
		t.Run(fmt.Sprintf("reversed=%v", reversed), func(t *testing.T) {
			cfg.NewID = counter()
			p, err := Load(cfg)
			if err != nil {
				t.Fatal(err)
			}
			first, err := collect(p, StreamRequest{SessionID: "parent", Cwd: "/w"})
			if err != nil {
				t.Fatal(err)
			}
			calls := []string{first[1].ID, first[4].ID} // live ids of {{toolCall:1}} and {{toolCall:2}}
			if reversed {
				calls[0], calls[1] = calls[1], calls[0]
			}
			texts := make([][]string, 2)
			var wg sync.WaitGroup
			for i, call := range calls {
				wg.Add(1)
				go func() {
					defer wg.Done()
					req := StreamRequest{SessionID: "child-of-" + call, SpawnedBy: call, Cwd: "/w/" + call}
					for range 2 {
						got, err := collect(p, req)
						if err != nil {
							texts[i] = append(texts[i], err.Error())
							return
						}
						texts[i] = append(texts[i], got[1].Text)
					}
				}()
			}
			wg.Wait()
			want := map[string][]string{
				"call_1": {"child of call 1, parent parent", "REPLAY: llmreplay: script exhausted: session.2.jsonl has 1 entries, model call 2 of session child-of-call_1 was not recorded; re-record the scenario"},
				"call_2": {"child of call 2 in /w/call_2", "child of call 2 again"},
			}
			got := map[string][]string{calls[0]: texts[0], calls[1]: texts[1]}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("children (-want +got):\n%s", diff)
			}
			wantReport := agentenv.Report{
				Fixtures: []agentenv.FixtureReport{{Fixture: "session.jsonl", Served: 1, Left: 1}, {Fixture: "session.1.jsonl", Served: 2, Left: 0}, {Fixture: "session.2.jsonl", Served: 1, Left: 0}},
				Errors:   []string{want["call_1"][1]},
			}
			if diff := cmp.Diff(wantReport, p.Report()); diff != "" {
				t.Errorf("report (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPlayerBindingErrors(t *testing.T) {
	dir := t.TempDir()
	cfg := Config{
		Primary:  writeFixture(t, dir, "session.jsonl", primaryHeader, Script{toolEntry("{{toolCall:1}}", "{{toolCall:2}}")}),
		Children: []string{writeFixture(t, dir, "session.1.jsonl", childHeader(2, 1), Script{stopEntry("c")})},
		NewID:    counter(),
	}
	p, err := Load(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(p, StreamRequest{SessionID: "parent"}); err != nil {
		t.Fatal(err)
	}
	if _, err := collect(p, StreamRequest{SessionID: "c1", SpawnedBy: "call_1"}); err != nil {
		t.Fatal(err)
	}
	type testCase struct {
		name string
		req  StreamRequest
		want string
	}
	tests := []testCase{
		{"second primary", StreamRequest{SessionID: "other"},
			"REPLAY: llmreplay: unrecorded session other: the primary fixture session.jsonl already serves session parent; re-record the scenario"},
		{"unknown spawner", StreamRequest{SessionID: "x", SpawnedBy: "call_zzz"},
			"REPLAY: llmreplay: unrecorded session x: spawned by tool call call_zzz, which the replay never served; re-record the scenario"},
		{"missing child fixture", StreamRequest{SessionID: "c2", SpawnedBy: "call_2"},
			"REPLAY: llmreplay: missing child fixture: no child fixture was spawned by {{toolCall:2}} (live call_2) for session c2; re-record the scenario"},
		{"child fixture taken", StreamRequest{SessionID: "c1bis", SpawnedBy: "call_1"},
			"REPLAY: llmreplay: unrecorded session c1bis: child fixture session.1.jsonl, spawned by {{toolCall:1}}, already serves session c1; re-record the scenario"},
	}
	var wantErrs []string
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := collect(p, tc.req)
			var pe *model.ProviderError
			if !errors.As(err, &pe) || pe.Code != "REPLAY" {
				t.Fatalf("error = %v, want a REPLAY model.ProviderError", err)
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
		wantErrs = append(wantErrs, tc.want)
	}
	if diff := cmp.Diff(wantErrs, p.Report().Errors); diff != "" {
		t.Errorf("report errors (-want +got):\n%s", diff)
	}
}

// TestLoadUnterminated: an unterminated call — a partial one, or one
// cancelled before its first chunk, which keeps its entry all the same —
// loads only with an override that replaces its entry by position.
func TestLoadUnterminated(t *testing.T) {
	dir := t.TempDir()
	partial := writeFile(t, dir, "partial.jsonl", logOf(ev(1, 1, cStop), ev(2, 1, cStart), ev(3, 1, cText), ev(3, 1, cStop)))
	noChunk := writeFile(t, dir, "nochunk.jsonl", logOf(hdr(1, 1), ev(1, 1, cStop), stepEnd(1, 1),
		hdr(2, 1), stepEnd(2, 1), hdr(3, 1), ev(3, 1, cText), ev(3, 1, cStop), stepEnd(3, 1)))
	derr := func(path string, line int) string {
		return fmt.Sprintf("llmreplay: derive: %s:%d: model call 2 (turn 2, step 1) ends without a finish chunk; "+
			"the scenario needs a replay.override.json that replaces entry 1 (e.g. with a hang)", path, line)
	}
	notReplaced := "llmreplay: load: " + filepath.Join(dir, "o.json") + " does not replace entry 1: "
	type testCase struct {
		name     string
		primary  string
		override string
		want     Script // nil: wantErr
		wantErr  string
	}
	var tests []testCase
	for _, log := range []struct {
		name, path string
		line       int
	}{{"partial", partial, 3}, {"no chunk", noChunk, 5}} {
		tests = append(tests,
			testCase{log.name + ": no override", log.path, "", nil, derr(log.path, log.line)},
			testCase{log.name + ": patch elsewhere", log.path, `{"patches":[{"at":0,"entry":{"kind":"hang"}},{"at":2,"entry":{"kind":"hang"}}]}`, nil,
				notReplaced + derr(log.path, log.line)},
			testCase{log.name + ": patch replaces it", log.path, `{"patches":[{"at":1,"entry":{"kind":"hang","readyFile":"ready"}}]}`,
				Script{{Kind: KindChunks, Chunks: []model.Chunk{stop}}, {Kind: KindHang, ReadyFile: "ready"}, {Kind: KindChunks, Chunks: []model.Chunk{text, stop}}}, ""},
			testCase{log.name + ": bare array", log.path, `[{"kind":"chunks","chunks":[` + cStop + `]},{"kind":"hang"}]`,
				Script{{Kind: KindChunks, Chunks: []model.Chunk{stop}}, {Kind: KindHang}}, ""},
		)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{Primary: tc.primary}
			if tc.override != "" {
				cfg.Override = writeFile(t, dir, "o.json", tc.override)
			}
			p, err := Load(cfg)
			if tc.want == nil {
				if err == nil || err.Error() != tc.wantErr {
					t.Errorf("Load error = %v\nwant %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, p.fixtures[0].script); diff != "" {
				t.Errorf("script (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	primary := writeFixture(t, dir, "session.jsonl", primaryHeader, Script{stopEntry("a")})
	child := writeFixture(t, dir, "session.1.jsonl", childHeader(2, 1), Script{})
	orphan := writeFixture(t, dir, "orphan.jsonl", sessionlog.Header{ID: "{{session:3}}", ParentSession: "{{session:1}}"}, Script{})
	cut := writeFile(t, dir, "cut.jsonl", logOf(ev(1, 1, cStart)))
	bad := writeFile(t, dir, "bad.json", `{"patches":[{"at":5,"entry":{"kind":"hang"}}]}`)
	invalid := writeFile(t, dir, "invalid.json", `[{"kind":"wait"}]`)
	missing := filepath.Join(dir, "nope.jsonl")
	type testCase struct {
		name string
		cfg  Config
		want string
	}
	tests := []testCase{
		{"no primary", Config{}, "llmreplay: load: no primary fixture given"},
		{"logs for other fixtures", Config{Primary: primary, Logs: [][]byte{}}, "llmreplay: load: 0 logs given for 1 fixtures"},
		{"missing primary", Config{Primary: missing}, "llmreplay: load: fixture " + missing + " does not exist; re-record the scenario"},
		{"missing child", Config{Primary: primary, Children: []string{missing}}, "llmreplay: load: fixture " + missing + " does not exist; re-record the scenario"},
		{"missing override", Config{Primary: primary, Override: missing}, "llmreplay: load: open " + missing + ": no such file or directory"},
		{"invalid override", Config{Primary: primary, Override: invalid}, "llmreplay: decode override: " + invalid + `:1: $[0].kind: unknown entry kind "wait" (want chunks, throw or hang)`},
		{"override past the end", Config{Primary: primary, Override: bad}, "llmreplay: apply override: " + bad + ":1: $.patches[0]: at 5 is past the end of the script (1 entries; at 1 appends)"},
		{"not a log", Config{Primary: bad}, "llmreplay: load: " + bad + `:1: header: json: unknown field "patches"`},
		{"child without spawnedBy", Config{Primary: primary, Children: []string{orphan}}, "llmreplay: load: " + orphan + ":1: child fixture without spawnedBy"},
		{"two children, one spawner", Config{Primary: primary, Children: []string{child, child}}, "llmreplay: load: " + child + ":1: spawnedBy {{toolCall:1}} is also the spawnedBy of " + child},
		{"unterminated child", Config{Primary: primary, Children: []string{cut}}, "llmreplay: load: an override can only replace calls of the primary session: llmreplay: derive: " + cut +
			":2: model call 1 (turn 1, step 1) ends without a finish chunk; the scenario needs a replay.override.json that replaces entry 0 (e.g. with a hang)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(tc.cfg)
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			if diff := cmp.Diff(tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "llmreplay")
	defer os.RemoveAll(dir)
	log := `{"type":"session","version":1,"id":"{{session:1}}","createdAt":0,"cwd":"{{cwd}}","delegationDepth":0}
{"type":"assistant/chunk","seq":0,"time":0,"data":{"turn":1,"step":1,"chunk":{"type":"tool-call-delta","index":0,"id":"{{toolCall:1}}","name":"read","argumentsDelta":"{\"path\":\"{{cwd}}/a.txt\"}"}}}
{"type":"assistant/chunk","seq":1,"time":0,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":"tool-calls"}}}
`
	os.WriteFile(filepath.Join(dir, "session.jsonl"), []byte(log), 0o644)
	p, err := Load(Config{Primary: filepath.Join(dir, "session.jsonl"), NewID: func() string { return "7" }})
	if err != nil {
		fmt.Println(err)
		return
	}
	req := StreamRequest{SessionID: "s-live", Cwd: "/home/me/work"}
	for range 2 {
		err := p.Stream(context.Background(), req, func(c model.Chunk) error {
			fmt.Println(strings.TrimSpace(c.Type + " " + c.ID + " " + c.ArgumentsDelta))
			return nil
		})
		if err != nil {
			fmt.Println(err)
		}
	}
	fmt.Printf("%+v\n", p.Report().Fixtures)
	// Output:
	// tool-call-delta call_7 {"path":"/home/me/work/a.txt"}
	// finish
	// REPLAY: llmreplay: script exhausted: session.jsonl has 1 entries, model call 2 of session s-live was not recorded; re-record the scenario
	// [{Fixture:session.jsonl Served:1 Left:0}]
}

// TestPlayerResume: a session reopened from a log holding one model call
// gets the fixture's second entry next; a log with more calls than the
// fixture, or a second session, is refused.
func TestPlayerResume(t *testing.T) {
	dir := t.TempDir()
	fixture := writeFixture(t, dir, "session.jsonl", primaryHeader, Script{stopEntry("first"), stopEntry("second as {{session:1}}")})
	partial, err := sessionlog.ReadFile(writeFixture(t, dir, "partial.jsonl", primaryHeader, Script{stopEntry("first")}))
	if err != nil {
		t.Fatal(err)
	}
	full, err := sessionlog.ReadFile(writeFixture(t, dir, "long.jsonl", primaryHeader, Script{stopEntry("a"), stopEntry("b"), stopEntry("c")}))
	if err != nil {
		t.Fatal(err)
	}
	p, err := Load(Config{Primary: fixture})
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Resume("sess-live", full); err == nil || !strings.Contains(err.Error(), "its log holds 3 model calls, the fixture session.jsonl only 2") {
		t.Errorf("resume past the fixture: %v", err)
	}
	if err := p.Resume("sess-live", partial); err != nil {
		t.Fatal(err)
	}
	got, err := collect(p, StreamRequest{SessionID: "sess-live"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(stopEntry("second as sess-live").Chunks, got); diff != "" {
		t.Errorf("the call after the resume (-want +got):\n%s", diff)
	}
	if err := p.Resume("other", partial); err == nil || !strings.Contains(err.Error(), "already serves session sess-live") {
		t.Errorf("resume of a second session: %v", err)
	}
}

// TestLoadLogs: fixtures the caller read already are derived from their
// contents; their paths only name them (nothing is read).
func TestLoadLogs(t *testing.T) {
	dir := t.TempDir()
	path := writeFixture(t, dir, "session.jsonl", primaryHeader, Script{stopEntry("from the bytes")})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	p, err := Load(Config{Primary: path, Logs: [][]byte{b}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := collect(p, StreamRequest{SessionID: "s", Cwd: "/live"})
	if err != nil {
		t.Fatal(err)
	}
	want := stopEntry("from the bytes").Chunks
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("served (-want +got):\n%s", diff)
	}
}

// TestTopLevelSessions: logs without a parent are the fixtures of further
// top-level sessions. Open binds them in creation order, whatever order
// the sessions first call the model in; a session that never opened binds
// at its first call; one more is refused naming every fixture.
func TestTopLevelSessions(t *testing.T) {
	dir := t.TempDir()
	first := writeFixture(t, dir, "session.jsonl", primaryHeader, Script{stopEntry("first")})
	child := writeFixture(t, dir, "session.1.jsonl", childHeader(2, 1), Script{stopEntry("child")})
	second := writeFixture(t, dir, "session.2.jsonl", sessionlog.Header{ID: "{{session:3}}", Cwd: "{{cwd}}"}, Script{stopEntry("second")})
	third := writeFixture(t, dir, "session.3.jsonl", sessionlog.Header{ID: "{{session:4}}", Cwd: "{{cwd}}"}, Script{stopEntry("third")})
	p, err := Load(Config{Primary: first, Children: []string{child, second, third}})
	if err != nil {
		t.Fatal(err)
	}
	p.Open("a")
	p.Open("b")
	p.Open("a") // bound already: nothing changes
	type testCase struct{ session, want string }
	for _, tc := range []testCase{{"b", "second"}, {"a", "first"}, {"c", "third"}} {
		got, err := collect(p, StreamRequest{SessionID: tc.session})
		if err != nil {
			t.Fatalf("session %s: %v", tc.session, err)
		}
		if diff := cmp.Diff(stopEntry(tc.want).Chunks, got); diff != "" {
			t.Errorf("session %s (-want +got):\n%s", tc.session, diff)
		}
	}
	_, err = collect(p, StreamRequest{SessionID: "d"})
	want := "REPLAY: llmreplay: unrecorded session d: every top-level fixture serves a session already (session.jsonl serves session a, session.2.jsonl serves session b, session.3.jsonl serves session c); re-record the scenario"
	if err == nil || err.Error() != want {
		t.Errorf("a fourth top-level session: %v, want %s", err, want)
	}
}
