package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

const header = `{"type":"session","version":1,"id":"{{session:1}}","createdAt":0,"cwd":"{{cwd}}","delegationDepth":0}`

// logOf joins a header and events into a session log; each event is
// {"type":…,"data":…} with seq filled in.
func logOf(events ...string) string {
	lines := []string{header}
	for i, e := range events {
		typ, data, _ := strings.Cut(e, " ")
		lines = append(lines, fmt.Sprintf(`{"type":%q,"seq":%d,"time":0,"data":%s}`, typ, i, data))
	}
	return strings.Join(lines, "\n") + "\n"
}

// ev is an assistant/chunk event of turn, step with chunk.
func ev(turn, step int, chunk string) string {
	return fmt.Sprintf(`assistant/chunk {"turn":%d,"step":%d,"chunk":%s}`, turn, step, chunk)
}

// hdr is the request/header event of turn, step.
func hdr(turn, step int) string {
	return fmt.Sprintf(`request/header {"turn":%d,"step":%d,"model":"m","system":"","tools":[]}`, turn, step)
}

// stepEnd is the step/end event of turn, step.
func stepEnd(turn, step int) string {
	return fmt.Sprintf(`step/end {"turn":%d,"step":%d}`, turn, step)
}

const (
	cText   = `{"type":"text-delta","index":0,"text":"hi"}`
	cStop   = `{"type":"finish","reason":"stop"}`
	cTools  = `{"type":"finish","reason":"tool-calls"}`
	cRate   = `{"type":"finish","reason":"error","error":"slow down","code":"RATE_LIMIT"}`
	cModel  = `{"type":"finish","reason":"error","error":"refused"}`
	cStart  = `{"type":"block-start","index":0,"blockType":"text"}`
	cEnd    = `{"type":"block-end","index":0}`
	cUsage  = `{"type":"usage","inputTokens":3,"outputTokens":4}`
	cCalled = `{"type":"tool-call-delta","index":0,"id":"{{toolCall:1}}","name":"bash","argumentsDelta":"{}"}`
)

var (
	text  = model.Chunk{Type: model.TextDelta, Text: "hi"}
	stop  = model.Chunk{Type: model.Finish, Reason: model.FinishStop}
	start = model.Chunk{Type: model.BlockStart, BlockType: model.BlockText}
)

func TestDerive(t *testing.T) {
	type testCase struct {
		name string
		log  string
		want Script
	}
	tests := []testCase{
		{"no model call", logOf(`turn/start {"turn":1}`, `turn/end {"turn":1,"reason":{"kind":"completed"}}`), Script{}},
		{"one call, other events ignored", logOf(`step/start {"turn":1,"step":1}`, ev(1, 1, cStart), ev(1, 1, cText), ev(1, 1, cEnd),
			`assistant/message {"turn":1,"step":1,"id":"m","text":"hi"}`, ev(1, 1, cUsage), ev(1, 1, cStop), `step/end {"turn":1,"step":1}`),
			Script{{Kind: KindChunks, Chunks: []model.Chunk{start, text, {Type: model.BlockEnd}, {Type: model.Usage, InputTokens: 3, OutputTokens: 4}, stop}}}},
		{"steps and turns", logOf(ev(1, 1, cCalled), ev(1, 1, cTools), `tool/call {"turn":1,"step":1,"callId":"{{toolCall:1}}","name":"bash","arguments":"{}"}`,
			ev(1, 2, cText), ev(1, 2, cStop), ev(2, 1, cStop)),
			Script{
				{Kind: KindChunks, Chunks: []model.Chunk{{Type: model.ToolCallDelta, ID: "{{toolCall:1}}", Name: "bash", ArgumentsDelta: "{}"}, {Type: model.Finish, Reason: model.FinishToolCalls}}},
				{Kind: KindChunks, Chunks: []model.Chunk{text, stop}},
				{Kind: KindChunks, Chunks: []model.Chunk{stop}},
			}},
		{"retry in one step splits at the finish", logOf(ev(1, 1, cStart), ev(1, 1, cRate), ev(1, 1, cText), ev(1, 1, cStop)),
			Script{
				{Kind: KindThrow, Chunks: []model.Chunk{start}, Message: "slow down", Code: "RATE_LIMIT"},
				{Kind: KindChunks, Chunks: []model.Chunk{text, stop}},
			}},
		{"throw without prefix", logOf(ev(1, 1, cRate)), Script{{Kind: KindThrow, Chunks: []model.Chunk{}, Message: "slow down", Code: "RATE_LIMIT"}}},
		{"model-side error stays chunks", logOf(ev(1, 1, cText), ev(1, 1, cModel)),
			Script{{Kind: KindChunks, Chunks: []model.Chunk{text, {Type: model.Finish, Reason: model.FinishError, Error: "refused"}}}}},
		{"headers open the calls of their steps", logOf(hdr(1, 1), ev(1, 1, cCalled), ev(1, 1, cTools), stepEnd(1, 1), hdr(1, 2), ev(1, 2, cStop), stepEnd(1, 2)),
			Script{
				{Kind: KindChunks, Chunks: []model.Chunk{{Type: model.ToolCallDelta, ID: "{{toolCall:1}}", Name: "bash", ArgumentsDelta: "{}"}, {Type: model.Finish, Reason: model.FinishToolCalls}}},
				{Kind: KindChunks, Chunks: []model.Chunk{stop}},
			}},
		{"retry after a header splits at the finish", logOf(hdr(1, 1), ev(1, 1, cStart), ev(1, 1, cRate), ev(1, 1, cText), ev(1, 1, cStop), stepEnd(1, 1)),
			Script{
				{Kind: KindThrow, Chunks: []model.Chunk{start}, Message: "slow down", Code: "RATE_LIMIT"},
				{Kind: KindChunks, Chunks: []model.Chunk{text, stop}},
			}},
		{"retry without prefix after a header", logOf(hdr(1, 1), ev(1, 1, cRate), ev(1, 1, cStop), stepEnd(1, 1), `turn/end {"turn":1,"reason":{"kind":"completed"}}`),
			Script{{Kind: KindThrow, Chunks: []model.Chunk{}, Message: "slow down", Code: "RATE_LIMIT"}, {Kind: KindChunks, Chunks: []model.Chunk{stop}}}},
		{"header without turn and step is ignored", logOf(`request/header {"model":"m","system":"","tools":[]}`, stepEnd(1, 1), ev(1, 1, cStop)),
			Script{{Kind: KindChunks, Chunks: []model.Chunk{stop}}}},
		{"without headers, step/end closes nothing", logOf(ev(1, 1, cRate), stepEnd(1, 1), `step/end {}`, `turn/end []`, ev(1, 1, cStop)),
			Script{{Kind: KindThrow, Chunks: []model.Chunk{}, Message: "slow down", Code: "RATE_LIMIT"}, {Kind: KindChunks, Chunks: []model.Chunk{stop}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Derive(strings.NewReader(tc.log), "session.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("script (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDeriveUnterminated(t *testing.T) {
	noChunks := Entry{Kind: KindChunks, Chunks: []model.Chunk{}}
	type testCase struct {
		name       string
		log        string
		wantScript Script
		wantErr    UnterminatedError
		wantMsg    string
	}
	tests := []testCase{
		{"at the end", logOf(ev(1, 1, cStop), `turn/start {"turn":2}`, ev(2, 1, cStart), ev(2, 1, cText)),
			Script{{Kind: KindChunks, Chunks: []model.Chunk{stop}}, {Kind: KindChunks, Chunks: []model.Chunk{start, text}}},
			UnterminatedError{File: "session.jsonl", Line: 4, Index: 1, Turn: 2, Step: 1, More: []UnterminatedError{}},
			"llmreplay: derive: session.jsonl:4: model call 2 (turn 2, step 1) ends without a finish chunk; the scenario needs a replay.override.json that replaces entry 1 (e.g. with a hang)"},
		{"followed by a later turn, twice", logOf(ev(1, 1, cStart), ev(2, 1, cStop), ev(3, 1, cText)),
			Script{{Kind: KindChunks, Chunks: []model.Chunk{start}}, {Kind: KindChunks, Chunks: []model.Chunk{stop}}, {Kind: KindChunks, Chunks: []model.Chunk{text}}},
			UnterminatedError{File: "session.jsonl", Line: 2, Index: 0, Turn: 1, Step: 1, More: []UnterminatedError{{File: "session.jsonl", Line: 4, Index: 2, Turn: 3, Step: 1}}},
			"llmreplay: derive: session.jsonl:2: model call 1 (turn 1, step 1) ends without a finish chunk; the scenario needs a replay.override.json that replaces entry 0 (e.g. with a hang); also session.jsonl:4, entry 2"},
		{"next step", logOf(ev(1, 1, cText), ev(1, 2, cStop)),
			Script{{Kind: KindChunks, Chunks: []model.Chunk{text}}, {Kind: KindChunks, Chunks: []model.Chunk{stop}}},
			UnterminatedError{File: "session.jsonl", Line: 2, Index: 0, Turn: 1, Step: 1, More: []UnterminatedError{}},
			"llmreplay: derive: session.jsonl:2: model call 1 (turn 1, step 1) ends without a finish chunk; the scenario needs a replay.override.json that replaces entry 0 (e.g. with a hang)"},
		{"no chunk between two complete calls", logOf(`turn/start {"turn":1}`, hdr(1, 1), ev(1, 1, cStop), stepEnd(1, 1), `turn/end {"turn":1,"reason":{"kind":"completed"}}`,
			`turn/start {"turn":2}`, hdr(2, 1), stepEnd(2, 1), `turn/end {"turn":2,"reason":{"kind":"aborted","by":"user"}}`,
			`turn/start {"turn":3}`, hdr(3, 1), ev(3, 1, cText), ev(3, 1, cStop), stepEnd(3, 1)),
			Script{{Kind: KindChunks, Chunks: []model.Chunk{stop}}, noChunks, {Kind: KindChunks, Chunks: []model.Chunk{text, stop}}},
			UnterminatedError{File: "session.jsonl", Line: 8, Index: 1, Turn: 2, Step: 1, More: []UnterminatedError{}},
			"llmreplay: derive: session.jsonl:8: model call 2 (turn 2, step 1) ends without a finish chunk; the scenario needs a replay.override.json that replaces entry 1 (e.g. with a hang)"},
		{"no chunk before turn/end", logOf(hdr(1, 1), `turn/end {"turn":1,"reason":{"kind":"aborted","by":"user"}}`, ev(1, 1, cStop)),
			Script{noChunks, {Kind: KindChunks, Chunks: []model.Chunk{stop}}},
			UnterminatedError{File: "session.jsonl", Line: 2, Index: 0, Turn: 1, Step: 1, More: []UnterminatedError{}},
			"llmreplay: derive: session.jsonl:2: model call 1 (turn 1, step 1) ends without a finish chunk; the scenario needs a replay.override.json that replaces entry 0 (e.g. with a hang)"},
		{"no chunk before the next header, nor at the end", logOf(hdr(1, 1), hdr(1, 2), ev(1, 2, cStop), hdr(1, 3)),
			Script{noChunks, {Kind: KindChunks, Chunks: []model.Chunk{stop}}, noChunks},
			UnterminatedError{File: "session.jsonl", Line: 2, Index: 0, Turn: 1, Step: 1, More: []UnterminatedError{{File: "session.jsonl", Line: 5, Index: 2, Turn: 1, Step: 3}}},
			"llmreplay: derive: session.jsonl:2: model call 1 (turn 1, step 1) ends without a finish chunk; the scenario needs a replay.override.json that replaces entry 0 (e.g. with a hang); also session.jsonl:5, entry 2"},
		{"no chunk of its own step", logOf(hdr(1, 2), ev(1, 1, cStop)),
			Script{noChunks, {Kind: KindChunks, Chunks: []model.Chunk{stop}}},
			UnterminatedError{File: "session.jsonl", Line: 2, Index: 0, Turn: 1, Step: 2, More: []UnterminatedError{}},
			"llmreplay: derive: session.jsonl:2: model call 1 (turn 1, step 2) ends without a finish chunk; the scenario needs a replay.override.json that replaces entry 0 (e.g. with a hang)"},
		{"cancelled in the retry pause: the abandoned retry", logOf(hdr(1, 1), ev(1, 1, cRate), stepEnd(1, 1), `turn/end {"turn":1,"reason":{"kind":"aborted","by":"user"}}`),
			Script{{Kind: KindThrow, Chunks: []model.Chunk{}, Message: "slow down", Code: "RATE_LIMIT"}, noChunks},
			UnterminatedError{File: "session.jsonl", Line: 2, Index: 1, Turn: 1, Step: 1, AbandonedRetry: true, More: []UnterminatedError{}},
			"llmreplay: derive: session.jsonl:2: model call 2 (turn 1, step 1) is the retry the agent abandoned when cancelled in its retry pause; a replay makes it, so the scenario needs a replay.override.json that supplies entry 1 (e.g. a hang)"},
		{"abandoned retry at the end of the log", logOf(hdr(1, 1), ev(1, 1, cRate)),
			Script{{Kind: KindThrow, Chunks: []model.Chunk{}, Message: "slow down", Code: "RATE_LIMIT"}, noChunks},
			UnterminatedError{File: "session.jsonl", Line: 2, Index: 1, Turn: 1, Step: 1, AbandonedRetry: true, More: []UnterminatedError{}},
			"llmreplay: derive: session.jsonl:2: model call 2 (turn 1, step 1) is the retry the agent abandoned when cancelled in its retry pause; a replay makes it, so the scenario needs a replay.override.json that supplies entry 1 (e.g. a hang)"},
		{"partial call, then a call without chunks", logOf(hdr(1, 1), ev(1, 1, cStart), stepEnd(1, 1), hdr(1, 2), stepEnd(1, 2)),
			Script{{Kind: KindChunks, Chunks: []model.Chunk{start}}, noChunks},
			UnterminatedError{File: "session.jsonl", Line: 3, Index: 0, Turn: 1, Step: 1, More: []UnterminatedError{{File: "session.jsonl", Line: 5, Index: 1, Turn: 1, Step: 2}}},
			"llmreplay: derive: session.jsonl:3: model call 1 (turn 1, step 1) ends without a finish chunk; the scenario needs a replay.override.json that replaces entry 0 (e.g. with a hang); also session.jsonl:5, entry 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Derive(strings.NewReader(tc.log), "session.jsonl")
			var u *UnterminatedError
			if !errors.As(err, &u) {
				t.Fatalf("error = %v, want an *UnterminatedError", err)
			}
			if diff := cmp.Diff(tc.wantScript, got); diff != "" {
				t.Errorf("script (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantErr, *u); diff != "" {
				t.Errorf("error fields (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantMsg, err.Error()); diff != "" {
				t.Errorf("message (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDeriveErrors(t *testing.T) {
	tests := []decodeErrorCase{
		{"not a session log", "{}\n", `session.jsonl:1: header: type is "", want "session"`},
		{"unknown chunk", logOf(ev(1, 1, cText), ev(1, 1, `{"type":"text-delt"}`)), `session.jsonl:3: $.data.chunk.type: unknown chunk "text-delt"`},
		{"data not an object", logOf(`assistant/chunk []`), `session.jsonl:2: $.data: want an assistant/chunk data object, got an array`},
		{"data missing", header + "\n" + `{"type":"assistant/chunk","seq":0,"time":0}` + "\n", `session.jsonl:2: $.data: missing`},
		{"missing step", logOf(`assistant/chunk {"turn":1,"chunk":{}}`), `session.jsonl:2: $.data.step: missing`},
		{"unknown key", logOf(`assistant/chunk {"turn":1,"step":1,"chunk":` + cStop + `,"attempt":2}`), `session.jsonl:2: $.data.attempt: unknown key (allowed: turn, step, chunk)`},
		{"turn zero", logOf(ev(0, 1, cStop)), `session.jsonl:2: $.data.turn: 0: numbers start at 1`},
		{"step not an integer", logOf(`assistant/chunk {"turn":1,"step":"1","chunk":` + cStop + `}`), `session.jsonl:2: $.data.step: want an integer, got "1"`},
		{"bad finish reason", logOf(ev(1, 1, `{"type":"finish","reason":"done"}`)), `session.jsonl:2: $.data.chunk.reason: unknown finish reason "done"`},
		{"header data not an object", logOf(`request/header []`), `session.jsonl:2: $.data: want a request/header data object, got an array`},
		{"header with turn only", logOf(`request/header {"turn":1,"model":"m"}`), `session.jsonl:2: $.data.step: missing`},
		{"header step zero", logOf(hdr(1, 0)), `session.jsonl:2: $.data.step: 0: numbers start at 1`},
		{"step/end turn not an integer after a header", logOf(hdr(1, 1), `step/end {"turn":"1","step":1}`), `session.jsonl:3: $.data.turn: want an integer, got "1"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Derive(strings.NewReader(tc.in), "session.jsonl")
			if err == nil {
				t.Fatalf("Derive = %v, want an error", got)
			}
			if diff := cmp.Diff("llmreplay: derive: "+tc.want, err.Error()); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDeriveRendered checks the round trip on a script with every kind the
// log can hold, including a retry within one step.
func TestDeriveRendered(t *testing.T) {
	want := Script{
		canonical,
		{Kind: KindThrow, Chunks: []model.Chunk{start, text}, Message: "busy", Code: "UNAVAILABLE"},
		stopEntry("retried"),
		{Kind: KindThrow, Chunks: []model.Chunk{}, Message: "", Code: "AUTH"},
		{Kind: KindChunks, Chunks: []model.Chunk{{Type: model.Finish, Reason: model.FinishError, Error: "model refused"}}},
	}
	log := renderLog(t, sessionlog.Header{ID: "{{session:1}}"}, want)
	got, err := Derive(bytes.NewReader(log), "session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("derived (-want +got):\n%s", diff)
	}
}

func ExampleDerive() {
	log := `{"type":"session","version":1,"id":"{{session:1}}","createdAt":0,"cwd":"{{cwd}}","delegationDepth":0}
{"type":"assistant/chunk","seq":0,"time":0,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":"error","error":"slow down","code":"RATE_LIMIT"}}}
{"type":"assistant/chunk","seq":1,"time":0,"data":{"turn":1,"step":1,"chunk":{"type":"text-delta","index":0,"text":"Hello"}}}
{"type":"assistant/chunk","seq":2,"time":0,"data":{"turn":1,"step":1,"chunk":{"type":"finish","reason":"stop"}}}
{"type":"turn/end","seq":3,"time":0,"data":{"turn":1,"reason":{"kind":"completed"}}}
`
	script, err := Derive(strings.NewReader(log), "session.jsonl")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range script {
		b, _ := e.MarshalJSON()
		fmt.Println(string(b))
	}
	// Output:
	// {"kind":"throw","chunks":[],"message":"slow down","code":"RATE_LIMIT"}
	// {"kind":"chunks","chunks":[{"index":0,"text":"Hello","type":"text-delta"},{"reason":"stop","type":"finish"}]}
}

// seedScripts are the fuzz seeds: the valid scripts of the tests, the
// malformed ones, and the committed fixtures' logs if any.
func seedScripts() []string {
	seeds := []string{`[{"kind":"chunks","chunks":[` + cStop + `]}]`, `{"patches":[{"at":0,"entry":{"kind":"hang"}}]}`}
	for _, tc := range scriptErrors {
		seeds = append(seeds, tc.in)
	}
	return seeds
}

func FuzzDecode(f *testing.F) {
	for _, s := range seedScripts() {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := DecodeScript(bytes.NewReader(b), "s.json")
		if err == nil {
			// What decodes marshals and decodes back to itself.
			out, merr := json.Marshal(s)
			if merr != nil {
				t.Fatal(merr)
			}
			again, err := DecodeScript(bytes.NewReader(out), "again.json")
			if err != nil {
				t.Fatalf("re-decoding %s: %v", out, err)
			}
			if diff := cmp.Diff(s, again); diff != "" {
				t.Errorf("decode(marshal(s)) (-want +got):\n%s", diff)
			}
		} else if !strings.HasPrefix(err.Error(), "llmreplay: decode script: s.json:") {
			t.Errorf("error without position: %v", err)
		}
		DecodeOverride(bytes.NewReader(b), "o.json")
		DecodeModel(bytes.NewReader(b), "m.json")
	})
}

// FuzzDerive: Derive never panics on a log, and deriving the log rendered
// from a valid script gives the script back (throws come back refused, hangs
// have no log form).
func FuzzDerive(f *testing.F) {
	for _, s := range seedScripts() {
		f.Add([]byte(s))
	}
	// A retryable throw that ends the script: the agent's retry was
	// abandoned.
	f.Add([]byte(`[{"kind":"chunks","chunks":[` + cStop + `]},{"kind":"throw","chunks":[],"message":"m","code":"UNAVAILABLE"}]`))
	// A hang between two calls, and one in a retry.
	f.Add([]byte(`[{"kind":"chunks","chunks":[` + cStop + `]},{"kind":"hang"},{"kind":"throw","chunks":[],"message":"m","code":"RATE_LIMIT"},{"kind":"hang"},{"kind":"chunks","chunks":[` + cStop + `]}]`))
	for _, path := range fixtureSeeds() {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		Derive(bytes.NewReader(b), "session.jsonl")
		s, err := DecodeScript(bytes.NewReader(b), "s.json")
		if err != nil {
			return
		}
		h := sessionlog.Header{ID: "{{session:1}}"}
		for _, hangs := range []bool{false, true} {
			checkRendered(t, s, hangs, render(t, h, s, hangs))
		}
	})
}

// checkRendered: deriving log, rendered from s, gives what rendered says,
// with exactly its unterminated entries reported.
func checkRendered(t *testing.T, s Script, hangs bool, log []byte) {
	t.Helper()
	want, unterminated := rendered(s, hangs)
	got, err := Derive(bytes.NewReader(log), "session.jsonl")
	var u *UnterminatedError
	switch {
	case len(unterminated) == 0 && err != nil:
		t.Fatal(err)
	case len(unterminated) > 0 && !errors.As(err, &u):
		t.Fatalf("error = %v, want an *UnterminatedError at %v", err, unterminated)
	case len(unterminated) > 0:
		if diff := cmp.Diff(unterminated, u.indexes()); diff != "" {
			t.Errorf("unterminated entries (-want +got):\n%s", diff)
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Derive(render(s, hangs=%v)) (-want +got):\n%s", hangs, diff)
	}
}
