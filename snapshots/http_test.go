package snapshots_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// httpCorpus writes a corpus whose agent is the reference agent treated as
// any third-party agent: it writes no acpsnap log (no ACPSNAP_* reaches
// it) and talks to its model over OpenAI chat completions, whose base URL
// and key come from the proxy's templates.
func httpCorpus(t *testing.T, prompt string) (root, dir string) {
	t.Helper()
	root = t.TempDir()
	argv := agentCommand
	yml := "version: 1\nagent:\n  command: [" + quoteAll(argv) + "]\n" +
		"  env: { DEEPSEEK_BASE_URL: \"{{model.url}}\", DEEPSEEK_API_KEY: \"{{model.key}}\" }\n" +
		"model:\n  dialect: openai-chat\nscrub:\n  - { pattern: 'chatcmpl-[0-9]+', replace: 'chatcmpl-N' }\n"
	writeFile(t, root, scenario.CorpusFile, yml)
	dir = filepath.Join(root, "text-turn")
	writeFile(t, dir, scenario.ManifestFile, "version: 1\nscenario: text-turn\nreason: one turn over HTTP\nrecording: live\n")
	writeFile(t, dir, scenario.InputFile, `{"steps":[{"op":"initialize"},{"op":"newSession"},{"op":"prompt","text":"`+prompt+`"}]}`)
	return root, dir
}

func quoteAll(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = "'" + strings.ReplaceAll(a, "'", "''") + "'"
	}
	return strings.Join(q, ", ")
}

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// textServer is a scripted upstream whose one answer is text, closed
// with the test.
func textServer(t *testing.T, text string) *replay.Server {
	t.Helper()
	srv, err := replay.NewServer(replay.ServerConfig{Primary: mustScript(t, `[{"kind":"chunks","chunks":[
		{"type":"block-start","index":0,"blockType":"text"},
		{"type":"text-delta","index":0,"text":"`+text+`"},
		{"type":"block-end","index":0},
		{"type":"finish","reason":"stop"}]}]`)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

// TestHTTPAgentRecordReplayDrift: record through the proxy against a
// scripted upstream, replay offline, and a changed prompt fails as a
// request drift that names the JSON path and only record accepts.
func TestHTTPAgentRecordReplayDrift(t *testing.T) {
	root, dir := httpCorpus(t, "Say hello.")
	corpus, err := scenario.LoadCorpus(root)
	if err != nil {
		t.Fatal(err)
	}
	srv := textServer(t, "Hello over HTTP.")
	const key = "sk-upstream-secret-0123456789"
	// The folders as read before the record, as the CLI and acpsnaptest
	// pass them: the pins the record writes are not among them, and the
	// replay of the stage must still see them.
	folders, err := check.ReadFolders(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := check.Config{
		Settings: harness.Settings{Mode: check.Record, Secrets: map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": key}},
		Corpus:   corpus,
		Folders:  folders,
	}
	if o := check.Check(context.Background(), dir, cfg); o.Status != check.Passed {
		t.Fatalf("record: %s: %s\n%s", o.Status, o.Reason, o.Stderr)
	}
	if got := srv.Requests(); len(got) != 1 || !strings.Contains(string(got[0].Body), "Say hello.") {
		t.Fatalf("the upstream got %d requests", len(got))
	}
	for _, f := range []string{scenario.SessionFile, scenario.StdoutFile} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), key) {
			t.Errorf("%s holds the upstream key", f)
		}
		if f == scenario.SessionFile && (!strings.Contains(string(b), `"dialect":"openai-chat"`) || !strings.Contains(string(b), "Hello over HTTP.")) {
			t.Errorf("the composed log lacks the dialect or the answer:\n%s", b)
		}
	}
	for _, pin := range []string{"system-*.md", "tools-*.json"} {
		if m, _ := filepath.Glob(filepath.Join(root, scenario.PinsDir, pin)); len(m) != 1 {
			t.Errorf("record wrote the pins %q, want one %s", m, pin)
		}
	}
	if vs := check.Verify(root, check.VerifyConfig{}); len(vs) > 0 {
		t.Errorf("the recorded corpus fails its guards: %v", vs)
	}
	srv.Close()
	replay := check.Config{Corpus: corpus}
	for range 2 {
		if o := check.Check(context.Background(), dir, replay); o.Status != check.Passed {
			t.Fatalf("replay: %s: %s\n%s", o.Status, o.Reason, o.Diff)
		}
	}
	writeFile(t, dir, scenario.InputFile, `{"steps":[{"op":"initialize"},{"op":"newSession"},{"op":"prompt","text":"Say goodbye."}]}`)
	o := check.Check(context.Background(), dir, replay)
	if o.Status != check.Failed || o.Accept != check.Record || !strings.Contains(o.Reason, "request drift") || !strings.Contains(o.Reason, "$.messages[") {
		t.Fatalf("a changed prompt: %s, accept %q: %s", o.Status, o.Accept, o.Reason)
	}
	refresh := check.Config{Settings: harness.Settings{Mode: check.Refresh}, Corpus: corpus}
	if o := check.Check(context.Background(), dir, refresh); o.Status != check.Failed || len(o.Wrote) > 0 {
		t.Fatalf("refresh accepted a request drift: %s, wrote %v", o.Status, o.Wrote)
	}
}

// TestFoldersReadOnce: a corpus as check.ReadFolders read it (acpsnap.yml
// and each scenario folder) is what the guards, the listing of the run,
// the harness (the client script, the committed log it replays) and the
// comparison use: with the files on disk spoiled after the reading, a run
// given the folders still passes, and one that reads the folder again
// fails. (A pin file never changes, so the run reads each one once, when
// it is first needed.)
func TestFoldersReadOnce(t *testing.T) {
	root, dir := httpCorpus(t, "Say hello.")
	corpus, err := scenario.LoadCorpus(root)
	if err != nil {
		t.Fatal(err)
	}
	srv := textServer(t, "Hello once.")
	record := check.Config{
		Settings: harness.Settings{Mode: check.Record, Secrets: map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-test-0123456789"}},
		Corpus:   corpus,
	}
	if o := check.Check(context.Background(), dir, record); o.Status != check.Passed {
		t.Fatalf("record: %s: %s\n%s", o.Status, o.Reason, o.Stderr)
	}
	srv.Close()
	folders, err := check.ReadFolders(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{scenario.InputFile, scenario.SessionFile, scenario.StdoutFile} {
		writeFile(t, dir, f, "spoiled after the reading\n")
	}
	writeFile(t, root, scenario.CorpusFile, "spoiled: [after the reading\n")
	if vs := check.Verify(root, check.VerifyConfig{Folders: folders}); len(vs) > 0 {
		t.Errorf("the guards over the folders as read: %v", vs)
	}
	if o := check.Check(context.Background(), dir, check.Config{Corpus: corpus, Folders: folders}); o.Status != check.Passed {
		t.Errorf("replay of the folders as read: %s: %s\n%s", o.Status, o.Reason, o.Diff)
	}
	outs, err := check.Run(context.Background(), check.RunConfig{Config: check.Config{Corpus: corpus, Folders: folders}, Root: root})
	if err != nil || len(outs) != 1 || outs[0].Status != check.Passed {
		t.Errorf("the run of the corpus as read: %v, %+v", err, outs)
	}
	if o := check.Check(context.Background(), dir, check.Config{Corpus: corpus}); o.Status != check.Failed {
		t.Errorf("replay that reads the spoiled folder: %s, want failed", o.Status)
	}
}
