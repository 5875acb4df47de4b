package snapshots_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/scenario"
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
// replay.Server serving script (JSON), as `acpsnap record` does with
// DEEPSEEK_BASE_URL pointing at it.
func recordScripted(t *testing.T, dir, script string) (*replay.Server, check.Outcome) {
	t.Helper()
	srv, err := replay.NewServer(replay.ServerConfig{Primary: mustScript(t, script)})
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
	srv, err := replay.NewServer(replay.ServerConfig{Primary: mustScript(t, bashThenDone("cd $HOME && pwd -P; cd .. && pwd -P"))})
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

func mustScript(t *testing.T, s string) replay.Script {
	t.Helper()
	sc, err := replay.DecodeScript(strings.NewReader(s), "script")
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestPinnedPromptChange: a changed system prompt of the reference agent is
// one new pin file for the corpus and a one-line change of each log that
// names it: replay fails naming the pin the recording names and record;
// record makes the log name the agent's pin and leaves the older pin file
// as it was, which then no scenario names, and pins prune removes.
func TestPinnedPromptChange(t *testing.T) {
	dir := copyScenario(t, "text-turn")
	root := filepath.Dir(dir)
	log := filepath.Join(dir, scenario.SessionFile)
	before, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	current := systemPin(t, before)
	// The recording names a prompt the agent no longer says.
	older := httplog.OpenPins(filepath.Join(root, scenario.PinsDir)).Overlay()
	ph := older.Pin(httplog.PinSystem, []byte("An older system prompt."))
	wrote, err := older.Write()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(log, bytes.ReplaceAll(before, []byte(current), []byte(ph)), 0o644); err != nil {
		t.Fatal(err)
	}
	o := check.Check(context.Background(), dir, check.Config{Settings: harness.Settings{Agent: agentCommand}})
	if o.Status != check.Failed || o.Accept != check.Record || !strings.Contains(o.Reason, wrote[0]) {
		t.Fatalf("replay against an older prompt: %s, accept %q: %s\n%s", o.Status, o.Accept, o.Reason, o.Diff)
	}
	if !strings.Contains(o.PinDrift, "[-older-]") || !strings.Contains(o.PinDrift, "reference coding agent") {
		t.Errorf("the change is not shown as a diff of the two prompts:\n%s", o.PinDrift)
	}
	if _, o := recordScripted(t, dir, `[{"kind":"chunks","chunks":[
		{"type":"block-start","index":0,"blockType":"text"},
		{"type":"text-delta","index":0,"text":"Hello there, nice to meet!"},
		{"type":"block-end","index":0},
		{"type":"usage","inputTokens":12,"outputTokens":7},
		{"type":"finish","reason":"stop"}]}]`); o.Status != check.Passed {
		t.Fatalf("record: %s: %s", o.Status, o.Reason)
	}
	if after, _ := os.ReadFile(log); systemPin(t, after) != current {
		t.Errorf("the re-recorded log does not name the agent's prompt %s:\n%s", current, after)
	}
	if b, err := os.ReadFile(wrote[0]); err != nil || string(b) != "An older system prompt." {
		t.Errorf("record changed the older pin: %q, %v", b, err)
	}
	// (The copy holds the pins of the whole bundled corpus; text-turn
	// names two of them.)
	currentFile, _ := httplog.FileName(current)
	unused, err := check.UnreferencedPins(root)
	if err != nil || !slices.Contains(unused, wrote[0]) || slices.Contains(unused, filepath.Join(root, scenario.PinsDir, currentFile)) {
		t.Errorf("unreferenced pins: %q, %v; want %s among them, not %s", unused, err, wrote[0], currentFile)
	}
	if removed, err := check.PrunePins(root); err != nil || !slices.Equal(removed, unused) {
		t.Errorf("prune removed %q (%v), want %q", removed, err, unused)
	}
	if o := check.Check(context.Background(), dir, check.Config{Settings: harness.Settings{Agent: agentCommand}}); o.Status != check.Passed {
		t.Errorf("replay after the prune: %s: %s\n%s", o.Status, o.Reason, o.Diff)
	}
}

// systemPin is the one system-prompt placeholder log names.
func systemPin(t *testing.T, log []byte) string {
	t.Helper()
	var sys []string
	for _, ph := range httplog.Refs(log) {
		if strings.HasPrefix(ph, "{{pin:"+httplog.PinSystem+":") {
			sys = append(sys, ph)
		}
	}
	if len(sys) != 1 {
		t.Fatalf("the log names the system pins %q, want one:\n%s", sys, log)
	}
	return sys[0]
}

// TestRecordRefusedLeavesPins: a record whose fixtures would not replay (a
// tool result that differs on every run) writes nothing, not even the pins
// its logs would name.
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
