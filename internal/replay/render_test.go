package replay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpsnap/acpsnap/internal/strictjson"
	"github.com/acpsnap/acpsnap/model"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// renderLog renders s back into the session log the reference agent would
// have written: each entry is one model call of turn 1, its step logs
// step/start, request/header, its assistant/chunk events and step/end; a
// throw is its prefix plus finish{error, code}; the call after a step's
// first call failed with a retryable error is its retry, in the same step,
// as the agent's single retry is. A hang in that retry position is the
// retry cancelled before its first chunk: the step ends without it. Other
// hang entries are skipped (render with hangs renders them as calls
// cancelled before their first chunk).
func renderLog(t testing.TB, h sessionlog.Header, s Script) []byte {
	t.Helper()
	return render(t, h, s, false)
}

func render(t testing.TB, h sessionlog.Header, s Script, hangs bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	write := func(v any) {
		b, err := strictjson.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		buf.Write(b)
	}
	h.Type, h.Version = "session", 1
	write(h)
	seq := 0
	event := func(typ string, data any) {
		raw, err := json.Marshal(data)
		if err != nil {
			t.Fatal(err)
		}
		write(sessionlog.Event{Type: typ, Seq: seq, Data: raw})
		seq++
	}
	step, pending := 0, false // pending: the step's first call failed retryably
	for _, e := range s {
		switch {
		case e.Kind == KindHang && pending:
			event("step/end", map[string]int{"turn": 1, "step": step})
			pending = false
			continue
		case e.Kind == KindHang && !hangs:
			continue
		}
		isRetry := pending
		if !isRetry {
			step++
			event("step/start", map[string]int{"turn": 1, "step": step})
			event("request/header", map[string]any{"turn": 1, "step": step, "model": "replay", "system": "", "tools": []any{}})
		}
		chunks := e.Chunks
		if e.Kind == KindThrow {
			chunks = append(chunks[:len(chunks):len(chunks)], model.Chunk{Type: model.Finish, Reason: model.FinishError, Error: e.Message, Code: e.Code})
		}
		for _, c := range chunks {
			event("assistant/chunk", map[string]any{"turn": 1, "step": step, "chunk": c})
		}
		pending = !isRetry && retryable(e)
		if !pending {
			event("step/end", map[string]int{"turn": 1, "step": step})
		}
	}
	if pending {
		event("step/end", map[string]int{"turn": 1, "step": step})
	}
	return buf.Bytes()
}

// retryable reports whether the agent retries after e (a throw with
// RATE_LIMIT or UNAVAILABLE).
func retryable(e Entry) bool {
	return e.Kind == KindThrow && (&model.ProviderError{Code: e.Code}).Retryable()
}

// rendered is what Derive must give for render(s, hangs): s without the
// hangs render skips, accepted dropped, and an entry without chunks where
// the log has a call that never finished (a rendered hang, or an abandoned
// retry), whose indexes come back as unterminated.
func rendered(s Script, hangs bool) (want Script, unterminated []int) {
	want, unterminated = Script{}, []int{}
	empty := func() {
		unterminated = append(unterminated, len(want))
		want = append(want, Entry{Kind: KindChunks, Chunks: []model.Chunk{}})
	}
	pending := false
	for _, e := range s {
		switch {
		case e.Kind == KindHang && pending:
			empty()
			pending = false
			continue
		case e.Kind == KindHang && hangs:
			empty()
			continue
		case e.Kind == KindHang:
			continue
		}
		isRetry := pending
		e.Accepted = false
		want = append(want, e)
		pending = !isRetry && retryable(e)
	}
	if pending {
		empty()
	}
	return want, unterminated
}

// writeFixture writes renderLog's log into dir/name and returns its path.
func writeFixture(t testing.TB, dir, name string, h sessionlog.Header, s Script) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, renderLog(t, h, s), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// writeFile writes content into dir/name and returns its path.
func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// stopEntry is a finished text call.
func stopEntry(text string) Entry {
	return Entry{Kind: KindChunks, Chunks: []model.Chunk{
		{Type: model.BlockStart, Index: 0, BlockType: model.BlockText},
		{Type: model.TextDelta, Index: 0, Text: text},
		{Type: model.BlockEnd, Index: 0},
		{Type: model.Finish, Reason: model.FinishStop},
	}}
}

// toolEntry calls one tool per id, each in its own block.
func toolEntry(ids ...string) Entry {
	var cs []model.Chunk
	for i, id := range ids {
		cs = append(cs,
			model.Chunk{Type: model.BlockStart, Index: i, BlockType: model.BlockToolCall},
			model.Chunk{Type: model.ToolCallDelta, Index: i, ID: id, Name: "task", ArgumentsDelta: `{"cwd":"{{cwd}}"}`},
			model.Chunk{Type: model.BlockEnd, Index: i})
	}
	return Entry{Kind: KindChunks, Chunks: append(cs, model.Chunk{Type: model.Finish, Reason: model.FinishToolCalls})}
}

// fixtureSeeds lists the corpus's session logs, to seed fuzzers with real
// logs.
func fixtureSeeds() []string {
	paths, _ := filepath.Glob("../../snapshots/*/session*.jsonl")
	return paths
}
