package replay_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// BenchmarkDerive derives the replay script of a large session log, written
// by the product's own sessionlog.Writer in the reference agent's shape.
// scripts/bench reports its MB/s.
func BenchmarkDerive(b *testing.B) {
	log := largeLog(b, 300)
	want := 300 * 2
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		s, err := replay.Derive(bytes.NewReader(log), "bench.jsonl")
		if err != nil {
			b.Fatal(err)
		}
		if len(s) != want {
			b.Fatalf("derived %d entries, want %d", len(s), want)
		}
	}
}

// largeLog writes a normalized session log of turns turns, two model calls
// each: a request header with a long system prompt and tool schemas, a
// stream of text deltas, a tool call, usage and finish, then the tool call
// and its result.
func largeLog(tb testing.TB, turns int) []byte {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), sessionlog.FileName)
	w, err := sessionlog.Create(path, sessionlog.Header{ID: "{{session:1}}", Cwd: "{{cwd}}"}, func() time.Time { return time.Unix(0, 0) })
	if err != nil {
		tb.Fatal(err)
	}
	system := strings.Repeat("You are a coding agent working in {{cwd}}. Use the tools; never leave the working directory.\n", 40)
	tools := []any{}
	for i := range 6 {
		tools = append(tools, map[string]any{"name": fmt.Sprintf("tool_%d", i), "description": strings.Repeat("Reads and writes files. ", 8),
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}})
	}
	call := 0
	for turn := 1; turn <= turns; turn++ {
		step := func(step int, chunks ...map[string]any) {
			appendEvent(tb, w, "request/header", map[string]any{"turn": turn, "step": step, "model": "deepseek-chat", "system": system, "tools": tools})
			for _, c := range chunks {
				appendEvent(tb, w, "assistant/chunk", map[string]any{"turn": turn, "step": step, "chunk": c})
			}
		}
		call++
		id := fmt.Sprintf("{{toolCall:%d}}", call)
		step(1, streamed(map[string]any{"type": "tool-call-delta", "index": 1, "id": id, "name": "read_file", "argumentsDelta": `{"path":"main.go"}`}, "tool-calls")...)
		appendEvent(tb, w, "tool/call", map[string]any{"turn": turn, "step": 1, "callId": id, "name": "read_file", "arguments": `{"path":"main.go"}`})
		appendEvent(tb, w, "tool/result", map[string]any{"turn": turn, "step": 1, "callId": id, "content": strings.Repeat("package main // {{cwd}}/main.go\n", 20)})
		step(2, streamed(nil, "stop")...)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	log, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return log
}

// streamed is one model call's chunks: a text block of 30 deltas, a
// tool-call block of extra when not nil, usage and a finish with reason.
func streamed(extra map[string]any, reason string) []map[string]any {
	cs := []map[string]any{{"type": "block-start", "index": 0, "blockType": "text"}}
	for k := range 30 {
		cs = append(cs, map[string]any{"type": "text-delta", "index": 0, "text": fmt.Sprintf("word%d ", k)})
	}
	cs = append(cs, map[string]any{"type": "block-end", "index": 0})
	if extra != nil {
		cs = append(cs, map[string]any{"type": "block-start", "index": 1, "blockType": "tool-call"}, extra, map[string]any{"type": "block-end", "index": 1})
	}
	return append(cs, map[string]any{"type": "usage", "inputTokens": 120, "outputTokens": 30}, map[string]any{"type": "finish", "reason": reason})
}

func appendEvent(tb testing.TB, w *sessionlog.Writer, typ string, data any) {
	tb.Helper()
	if err := w.Append(typ, data); err != nil {
		tb.Fatal(err)
	}
}
