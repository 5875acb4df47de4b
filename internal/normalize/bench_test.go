package normalize

import (
	"fmt"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// syntheticLog builds a large session log shaped like the reference agent's:
// per turn a user message, per step a request header (long system prompt
// and tool schemas), a stream of small chunks, a tool call and a tool result
// full of paths, ids and timestamps.
func syntheticLog(tb testing.TB, turns int) []byte {
	tb.Helper()
	cwd := benchRoot + "/wd"
	uuid := func(n int) string { return fmt.Sprintf("%08x-1111-4222-8333-%012x", n, n*7) }
	var b []byte
	write := func(v any) {
		line, err := strictjson.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		b = append(b, line...)
	}
	write(map[string]any{"type": "session", "version": 1, "id": uuid(0), "createdAt": 1764496745000, "cwd": cwd, "delegationDepth": 0})
	system := strings.Repeat("You are a coding agent working in "+cwd+". Use the tools; never leave the working directory.\n", 40)
	tools := []any{}
	for i := range 6 {
		tools = append(tools, map[string]any{"name": fmt.Sprintf("tool_%d", i), "description": strings.Repeat("Reads and writes files below the cwd. ", 8),
			"parameters": map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []string{"path"}}})
	}
	seq := 0
	event := func(typ string, data map[string]any) {
		write(map[string]any{"type": typ, "seq": seq, "time": 1764496745000 + seq, "data": data})
		seq++
	}
	for turn := 1; turn <= turns; turn++ {
		event("turn/start", map[string]any{"turn": turn})
		event("user/message", map[string]any{"turn": turn, "id": uuid(turn), "content": []any{map[string]any{"type": "text", "text": "please fix " + cwd + "/main.go"}}})
		for step := 1; step <= 2; step++ {
			event("step/start", map[string]any{"turn": turn, "step": step})
			event("request/header", map[string]any{"turn": turn, "step": step, "model": "deepseek-chat", "system": system, "tools": tools})
			for k := range 30 {
				event("assistant/chunk", map[string]any{"turn": turn, "step": step, "chunk": map[string]any{"type": "text-delta", "index": 0, "text": fmt.Sprintf("word%d ", k)}})
			}
			call := fmt.Sprintf("call_0_%s", uuid(1000+turn*10+step))
			event("assistant/chunk", map[string]any{"turn": turn, "step": step, "chunk": map[string]any{"type": "tool-call-delta", "index": 1, "id": call, "name": "read_file", "argumentsDelta": `{"path":"` + cwd + `/main.go"}`}})
			event("assistant/message", map[string]any{"turn": turn, "step": step, "id": uuid(2000 + turn), "text": strings.Repeat("word ", 30), "toolCalls": []any{map[string]any{"id": call, "name": "read_file", "arguments": `{"path":"main.go"}`}}})
			event("tool/call", map[string]any{"turn": turn, "step": step, "callId": call, "name": "read_file", "arguments": `{"path":"main.go"}`})
			result := strings.Repeat("package main // "+cwd+"/main.go modified 2026-11-30T10:19:05Z by "+uuid(turn)+"\n", 20)
			event("tool/result", map[string]any{"turn": turn, "step": step, "callId": call, "content": result, "durationMs": 12})
			event("step/end", map[string]any{"turn": turn, "step": step})
		}
		event("turn/end", map[string]any{"turn": turn, "reason": map[string]any{"kind": "completed"}})
	}
	return b
}

// benchNonce and benchRoot are a run's nonce and root, as the harness
// names them.
const (
	benchNonce = "0004211-k2m9q4xa"
	benchRoot  = "/tmp/acpsnap-" + benchNonce
)

// benchContext is the live context the harness builds: the cwd inside the
// run's private root, beside the home, each with its "/private" spelling.
func benchContext() *Context {
	const root = benchRoot
	c := NewContext(root+"/wd", "/private"+root+"/wd")
	c.AddPath("home", root+"/home", "/private"+root+"/home")
	c.AddPath("root", root, "/private"+root)
	c.AddNonce(benchNonce, root+"/tmp", root+"/sessions")
	return c
}

func BenchmarkSession(b *testing.B) {
	log := syntheticLog(b, 200)
	b.SetBytes(int64(len(log)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Session(log, benchContext()); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSyntheticLogIdempotent(t *testing.T) {
	log := syntheticLog(t, 3)
	once, err := Session(log, NewContext(benchRoot+"/wd"))
	if err != nil {
		t.Fatal(err)
	}
	twice, err := Session(once, NewContext(benchRoot+"/wd"))
	if err != nil {
		t.Fatal(err)
	}
	if string(once) != string(twice) {
		t.Fatal("not idempotent")
	}
	if strings.Contains(string(once), "acpsnap-run") || strings.Contains(string(once), "2026-") {
		t.Fatalf("volatile value survives:\n%s", once)
	}
}
