package snapshots_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestTwoTopLevelSessions: a client that opens two top-level sessions and
// prompts each records one log per session (session.jsonl, then
// session.1.jsonl without a parent), and replays, each session served from
// its own log.
func TestTwoTopLevelSessions(t *testing.T) {
	dir := copyScenario(t, "text-turn")
	if err := os.WriteFile(filepath.Join(dir, scenario.InputFile), []byte(`{"steps":[{"op":"initialize"},
		{"op":"newSession"},{"op":"prompt","text":"Say hello."},
		{"op":"newSession"},{"op":"prompt","text":"Say goodbye."}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, o := recordScripted(t, dir, `[`+textEntry("Hello.")+`,`+textEntry("Goodbye.")+`]`)
	mustPass(t, o)
	second, err := os.ReadFile(filepath.Join(dir, scenario.ChildFile(1)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(second), "Goodbye.") || strings.Contains(string(second), "parentSession") {
		t.Errorf("%s is not the second top-level session's log:\n%s", scenario.ChildFile(1), second)
	}
	if vs := check.Verify(filepath.Dir(dir), check.VerifyConfig{}); len(vs) > 0 {
		t.Errorf("the recorded fixtures fail the guards: %v", vs)
	}
	for range 3 {
		mustPass(t, check.Check(context.Background(), dir, check.Config{Settings: harness.Settings{Agent: agentCommand}}))
	}
}

// textEntry is a scripted model entry that streams text (JSON-safe).
func textEntry(text string) string {
	return `{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"text"},{"type":"text-delta","index":0,"text":` + jsonString(text) + `},` +
		`{"type":"block-end","index":0},{"type":"finish","reason":"stop"}]}`
}

// toolEntry is a scripted model entry that calls the tool name with the
// JSON arguments args, as the call id.
func toolEntry(id, name, args string) string {
	return `{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"tool-call"},` +
		`{"type":"tool-call-delta","index":0,"id":` + jsonString(id) + `,"name":` + jsonString(name) + `,"argumentsDelta":` + jsonString(args) + `},` +
		`{"type":"block-end","index":0},{"type":"finish","reason":"tool-calls"}]}`
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
