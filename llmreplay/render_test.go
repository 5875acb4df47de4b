package llmreplay

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/acpsnap/acpsnap/internal/jsonl"
	"github.com/acpsnap/acpsnap/internal/sessionlog"
)

// renderLog renders s back into the session log the reference agent would
// have written: each entry is one model call of turn 1, its step logs
// step/start, request/header, its assistant/chunk events and step/end; a
// throw is its prefix plus finish{error, code}; a call after a retryable
// throw stays in the same step, as the agent's single retry does. Hang
// entries are skipped (see renderCancelled).
func renderLog(t testing.TB, h sessionlog.Header, s Script) []byte {
	t.Helper()
	return render(t, h, s, false)
}

// renderCancelled is renderLog with each hang rendered as a call cancelled
// before its first chunk: a step with its request/header and no chunk. A
// hang in a retry has no log form and is still skipped.
func renderCancelled(t testing.TB, h sessionlog.Header, s Script) []byte {
	t.Helper()
	return render(t, h, s, true)
}

func render(t testing.TB, h sessionlog.Header, s Script, hangs bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	write := func(v any) {
		b, err := jsonl.Marshal(v)
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
	step, retry := 0, false
	for _, e := range s {
		if e.Kind == KindHang && (!hangs || retry) {
			continue
		}
		if !retry {
			step++
			event("step/start", map[string]int{"turn": 1, "step": step})
			event("request/header", map[string]any{"turn": 1, "step": step, "model": "replay", "system": "", "tools": []any{}})
		}
		chunks := e.Chunks
		if e.Kind == KindThrow {
			chunks = append(chunks[:len(chunks):len(chunks)], Chunk{Type: Finish, Reason: FinishError, Error: e.Message, Code: e.Code})
		}
		for _, c := range chunks {
			event("assistant/chunk", map[string]any{"turn": 1, "step": step, "chunk": c})
		}
		retry = e.Kind == KindThrow && (&ProviderError{Code: e.Code}).Retryable()
		if !retry {
			event("step/end", map[string]int{"turn": 1, "step": step})
		}
	}
	return buf.Bytes()
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
	return Entry{Kind: KindChunks, Chunks: []Chunk{
		{Type: BlockStart, Index: 0, BlockType: BlockText},
		{Type: TextDelta, Index: 0, Text: text},
		{Type: BlockEnd, Index: 0},
		{Type: Finish, Reason: FinishStop},
	}}
}

// toolEntry calls one tool per id, each in its own block.
func toolEntry(ids ...string) Entry {
	var cs []Chunk
	for i, id := range ids {
		cs = append(cs,
			Chunk{Type: BlockStart, Index: i, BlockType: BlockToolCall},
			Chunk{Type: ToolCallDelta, Index: i, ID: id, Name: "task", ArgumentsDelta: `{"cwd":"{{cwd}}"}`},
			Chunk{Type: BlockEnd, Index: i})
	}
	return Entry{Kind: KindChunks, Chunks: append(cs, Chunk{Type: Finish, Reason: FinishToolCalls})}
}

// fixtureSeeds lists the corpus's session logs, to seed fuzzers with real
// logs.
func fixtureSeeds() []string {
	paths, _ := filepath.Glob("../snapshots/*/session*.jsonl")
	return paths
}
