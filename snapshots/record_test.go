package snapshots_test

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/check"
	"github.com/acpsnap/acpsnap/harness"
	"github.com/acpsnap/acpsnap/llmreplay"
	"github.com/acpsnap/acpsnap/scenario"
)

// TestRecordAgainstBaseURL: record mode talks to whatever DEEPSEEK_BASE_URL
// points at, through the real DeepSeek adapter, rewrites the fixtures, and
// the new fixtures replay.
func TestRecordAgainstBaseURL(t *testing.T) {
	dir := copyScenario(t, "text-turn")
	srv, o := recordScripted(t, dir, `[{"kind":"chunks","chunks":[
		{"type":"block-start","index":0,"blockType":"text"},
		{"type":"text-delta","index":0,"text":"Freshly recorded."},
		{"type":"block-end","index":0},
		{"type":"usage","inputTokens":7,"outputTokens":3},
		{"type":"finish","reason":"stop"}]}]`)
	if o.Status != check.Passed || len(o.Wrote) != 2 {
		t.Fatalf("record: status %s, wrote %v: %s", o.Status, o.Wrote, o.Reason)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the model server got %d requests, want 1", n)
	}
	for _, f := range []string{scenario.SessionFile, scenario.StdoutFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "Freshly recorded.") {
			t.Errorf("%s does not hold the recorded answer:\n%s", f, b)
		}
	}
	o = check.Check(context.Background(), dir, check.Config{Settings: harness.Settings{Agent: agentCommand}})
	if o.Status != check.Passed {
		t.Errorf("replay of the new recording: %s: %s\n%s", o.Status, o.Reason, o.Diff)
	}
	if vs := check.Verify(filepath.Dir(dir), check.VerifyConfig{}); len(vs) > 0 {
		t.Errorf("the recorded fixtures fail the guards: %v", vs)
	}
}

// TestPrivatePathsNormalized: a tool that prints the agent's HOME, TMPDIR
// and the folder above its cwd records as {{home}} and {{root}} and
// replays, although every run has fresh private roots.
func TestPrivatePathsNormalized(t *testing.T) {
	dir := copyScenario(t, "tool-bash")
	if _, o := recordScripted(t, dir, bashThenDone("echo $HOME; echo $TMPDIR; cd .. && pwd")); o.Status != check.Passed {
		t.Fatalf("record: %s: %s", o.Status, o.Reason)
	}
	log, err := os.ReadFile(filepath.Join(dir, scenario.SessionFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{{home}}\n`, `{{root}}/tmp\n`, `{{root}}\n`} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the recorded tool result lacks %q", want)
		}
	}
	for range 2 {
		if o := check.Check(context.Background(), dir, check.Config{Settings: harness.Settings{Agent: agentCommand}}); o.Status != check.Passed {
			t.Fatalf("replay: %s: %s\n%s", o.Status, o.Reason, o.Diff)
		}
	}
}

// recordScripted records the scenario in dir in Record mode against an
// llmreplay.Server serving script (JSON), as `acpsnap record` does with
// DEEPSEEK_BASE_URL pointing at it.
func recordScripted(t *testing.T, dir, script string) (*llmreplay.Server, check.Outcome) {
	t.Helper()
	srv, err := llmreplay.NewServer(llmreplay.ServerConfig{Primary: mustScript(t, script)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg := check.Config{
		Settings: harness.Settings{Agent: agentCommand, Mode: check.Record, Secrets: map[string]string{"DEEPSEEK_API_KEY": "k", "DEEPSEEK_BASE_URL": srv.URL()}},
	}
	return srv, check.Check(context.Background(), dir, cfg)
}

// TestPrivatePathsThroughSymlinkedTempDir: with the temporary folder behind
// a symbolic link, the real-path spellings of the private HOME and root
// (what `pwd -P` prints) normalize too: their aliases are computed while
// the folders exist.
func TestPrivatePathsThroughSymlinkedTempDir(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "tmp-link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	dir := copyScenario(t, "tool-bash")
	srv, err := llmreplay.NewServer(llmreplay.ServerConfig{Primary: mustScript(t, bashThenDone("cd $HOME && pwd -P; cd .. && pwd -P"))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	cfg := check.Config{
		Settings: harness.Settings{Agent: agentCommand, Mode: check.Record, TempDir: link, Secrets: map[string]string{"DEEPSEEK_API_KEY": "k", "DEEPSEEK_BASE_URL": srv.URL()}},
	}
	if o := check.Check(context.Background(), dir, cfg); o.Status != check.Passed {
		t.Fatalf("record: %s: %s", o.Status, o.Reason)
	}
	log, err := os.ReadFile(filepath.Join(dir, scenario.SessionFile))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(log), real) || !strings.Contains(string(log), `{{home}}\n{{root}}\n`) {
		t.Errorf("the real-path spellings survived normalization:\n%s", log)
	}
	if o := check.Check(context.Background(), dir, check.Config{Settings: harness.Settings{Agent: agentCommand, TempDir: link}}); o.Status != check.Passed {
		t.Fatalf("replay: %s: %s\n%s", o.Status, o.Reason, o.Diff)
	}
}

func mustScript(t *testing.T, s string) llmreplay.Script {
	t.Helper()
	sc, err := llmreplay.DecodeScript(strings.NewReader(s), "script")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestPinnedPromptChange: a changed system prompt of the reference agent is
// one diff for the corpus, the pin file, not one per scenario: replay fails
// naming record; record rewrites the pin and leaves the log's placeholders
// as they are.
func TestPinnedPromptChange(t *testing.T) {
	dir := copyScenario(t, "text-turn")
	pin := filepath.Join(filepath.Dir(dir), scenario.PinsDir, scenario.PinClass+".system.md")
	old, err := os.ReadFile(pin)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, scenario.SessionFile))
	if !strings.Contains(string(before), "{{pin:agent:system}}") {
		t.Fatalf("the committed log is not pinned:\n%s", before)
	}
	// The corpus's pin says something the agent no longer says.
	if err := os.WriteFile(pin, []byte("An older system prompt."), 0o644); err != nil {
		t.Fatal(err)
	}
	o := check.Check(context.Background(), dir, check.Config{Settings: harness.Settings{Agent: agentCommand}})
	if o.Status != check.Failed || o.Accept != check.Record {
		t.Fatalf("replay with a stale pin: %s, accept %q: %s\n%s", o.Status, o.Accept, o.Reason, o.Diff)
	}
	if _, o := recordScripted(t, dir, `[{"kind":"chunks","chunks":[
		{"type":"block-start","index":0,"blockType":"text"},
		{"type":"text-delta","index":0,"text":"Hello there, nice to meet!"},
		{"type":"block-end","index":0},
		{"type":"usage","inputTokens":12,"outputTokens":7},
		{"type":"finish","reason":"stop"}]}]`); o.Status != check.Passed {
		t.Fatalf("record: %s: %s", o.Status, o.Reason)
	}
	if now, _ := os.ReadFile(pin); string(now) != string(old) {
		t.Errorf("record did not rewrite the pin to the agent's prompt:\n%s", now)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, scenario.SessionFile)); !strings.Contains(string(after), "{{pin:agent:system}}") {
		t.Errorf("the re-recorded log lost its placeholder:\n%s", after)
	}
}

// TestRecordRefusedLeavesPins: a record whose fixtures would not replay (a
// tool result that differs on every run) writes nothing, and the pins it
// set for a corpus that had none are gone again with the rest.
func TestRecordRefusedLeavesPins(t *testing.T) {
	dir := copyScenario(t, "tool-bash")
	pins := filepath.Join(filepath.Dir(dir), scenario.PinsDir)
	if err := os.RemoveAll(pins); err != nil {
		t.Fatal(err)
	}
	_, o := recordScripted(t, dir, bashThenDone("od -An -N8 -tx1 /dev/urandom"))
	if o.Status != check.Failed || !strings.Contains(o.Reason, "does not replay") {
		t.Fatalf("record of a random tool result: %s: %s; want the write refused", o.Status, o.Reason)
	}
	if _, err := os.Stat(pins); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the refused record left %s (%v)", pins, err)
	}
}

// bashThenDone is a model script of two answers: a bash tool call running
// command, then the text "Done.".
func bashThenDone(command string) string {
	args, _ := json.Marshal(map[string]string{"command": command})
	delta, _ := json.Marshal(string(args))
	return `[{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"tool-call"},` +
		`{"type":"tool-call-delta","index":0,"id":"call_1","name":"bash","argumentsDelta":` + string(delta) + `},` +
		`{"type":"block-end","index":0},{"type":"finish","reason":"tool-calls"}]},` +
		`{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"text"},{"type":"text-delta","index":0,"text":"Done."},` +
		`{"type":"block-end","index":0},{"type":"finish","reason":"stop"}]}]`
}
