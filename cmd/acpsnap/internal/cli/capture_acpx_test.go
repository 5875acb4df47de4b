package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// acpxInstall is the one command that installs the client these tests run.
const acpxInstall = `eval "$(scripts/install-agents)"`

// acpx is the acpx command: the one scripts/install-agents installs (via
// scripts/install-acpx), else one on PATH; the
// test skips, naming the install command, when there is none.
func acpx(t *testing.T) string {
	t.Helper()
	// The module root is four folders up from this package's.
	if p, err := filepath.Abs(filepath.Join("..", "..", "..", "..", ".cache", "acpx", "node_modules", ".bin", "acpx")); err == nil {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("acpx"); err == nil {
		return p
	}
	t.Skipf("acpx is not installed (install it with: %s)", acpxInstall)
	return ""
}

// TestCaptureAcpx: a real ACP client from npm, acpx, starts `acpsnap
// capture` where it would start the agent, and gets the model's live
// answers through it; the scenario holds its prompt, its permission answer
// (an agent in ask mode, acpx --approve-all) and the read it served
// through its fs, replays offline, and no file holds the key. The key and
// the model's URL are in the project's .env, so acpx never holds the key.
func TestCaptureAcpx(t *testing.T) {
	bin := acpx(t)
	type testCase struct {
		name, prompt, model string
		ask                 bool     // the agent asks before writing
		flags               []string // acpx's
		answer              string   // what acpx shows of the model's answer
		check               func(t *testing.T, in *scenario.Input, sdir string)
	}
	cases := []testCase{
		{name: "text-turn", prompt: "Say hello.", model: "[" + say("Hello from the live model.") + "]", answer: "Hello from the live model.",
			check: func(t *testing.T, in *scenario.Input, _ string) {
				if len(in.Steps) != 3 || in.Steps[2].Op != scenario.OpPrompt || in.Steps[2].Text != "Say hello." {
					t.Errorf("steps: %+v", in.Steps)
				}
			}},
		{name: "permission-approved", prompt: "Write done.txt saying ok.", model: "[" + writeDone + "," + say("Wrote it.") + "]",
			ask: true, flags: []string{"--approve-all"}, answer: "Wrote it.",
			check: func(t *testing.T, in *scenario.Input, sdir string) {
				if len(in.PermissionAnswers) != 1 || in.PermissionAnswers[0].Kind != "allow_once" {
					t.Errorf("permissionAnswers: %+v", in.PermissionAnswers)
				}
				if b, err := os.ReadFile(filepath.Join(sdir, scenario.ExpectedDir, "done.txt")); err != nil || string(b) != "ok\n" {
					t.Errorf("workspace.expected/done.txt: %q, %v", b, err)
				}
			}},
		{name: "tool-read-client-fs", prompt: "What do the notes say?", model: "[" + readNotes + "," + say("They say: buy milk.") + "]",
			answer: "They say: buy milk.",
			check: func(t *testing.T, in *scenario.Input, sdir string) {
				var caps bytes.Buffer
				json.Compact(&caps, in.ClientCapabilities)
				if !bytes.Contains(caps.Bytes(), []byte(`"readTextFile":true`)) {
					t.Errorf("clientCapabilities: %s", in.ClientCapabilities)
				}
				log, _ := os.ReadFile(filepath.Join(sdir, scenario.SessionFile))
				if !bytes.Contains(log, []byte("buy milk")) {
					t.Errorf("session.jsonl does not hold what acpx served:\n%s", log)
				}
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			corpus, proj := captureCorpus(t)
			if c.ask {
				askingAgent(t, corpus)
			}
			srv := upstream(t, c.model, "")
			writeFile(t, filepath.Join(proj, ".env"), fmt.Sprintf("OPENAI_BASE_URL=%s\nOPENAI_API_KEY=%s\n", srv.URL(), captureKey))
			exe, _ := os.Executable()
			// capture's stderr goes to a file: its worker writes after acpx
			// has stopped reading it.
			logf := filepath.Join(t.TempDir(), "capture.log")
			agent := fmt.Sprintf("sh -c 'exec \"$0\" capture -dir \"$1\" -expect-workspace \"$2\" 2>>\"$3\"' %s %s %s %s", exe, corpus, c.name, logf)
			args := append(append([]string{"--agent", agent}, c.flags...), "exec", c.prompt)
			cmd := exec.Command(bin, args...)
			cmd.Dir = proj
			cmd.Env = acpxEnv(t)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("acpx: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
				}
			case <-time.After(3 * time.Minute):
				cmd.Process.Kill()
				t.Fatalf("acpx did not end within 3 minutes\nstdout:\n%s\nstderr:\n%s", out.String(), errb.String())
			}
			if !strings.Contains(out.String(), c.answer) {
				t.Errorf("acpx did not show the model's answer %q:\n%s", c.answer, out.String())
			}
			sdir := filepath.Join(corpus, c.name)
			// acpx kills the process it started, and every descendant, a
			// moment after it closes its stdin: capture's worker, which
			// is neither, writes the scenario when it has gone.
			if !appears(filepath.Join(sdir, scenario.StdoutFile)) {
				log, _ := os.ReadFile(logf)
				t.Fatalf("capture wrote no scenario; acpx:\n%s%s\ncapture's stderr:\n%s", out.String(), errb.String(), log)
			}
			var in scenario.Input
			readJSON(t, filepath.Join(sdir, scenario.InputFile), &in)
			c.check(t, &in, sdir)
			if _, err := os.Stat(filepath.Join(sdir, "workspace", ".env")); err == nil {
				t.Errorf("the project's .env was copied into workspace/")
			}
			assertReplays(t, corpus)
			assertNoKey(t, corpus, nil)
		})
	}
}

// askingAgent makes the corpus's reference agent ask before it writes
// (ACPSNAP_PERMISSION, which a corpus's agent.env may not set).
func askingAgent(t *testing.T, corpus string) {
	t.Helper()
	p := filepath.Join(corpus, scenario.CorpusFile)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	b = bytes.Replace(b, fmt.Appendf(nil, "command: [%q, agent]", exe),
		fmt.Appendf(nil, "command: [sh, -c, 'ACPSNAP_PERMISSION=ask exec \"$0\" agent', %q]", exe), 1)
	writeFile(t, p, string(b))
}

// acpxEnv is the environment acpx runs in: its own HOME, no CI, and
// nothing of the live model (capture reads it from the project's .env).
func acpxEnv(t *testing.T) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if name != "CI" && name != "HOME" && name != "GORACE" && !strings.HasPrefix(name, "OPENAI_") {
			env = append(env, kv)
		}
	}
	// A race-enabled test binary sleeps a second at exit: capture's
	// launcher would still be acpx's descendant when acpx looks for the
	// agent's, and acpx would end the worker with it.
	return append(env, "HOME="+t.TempDir(), "TMPDIR="+t.TempDir(), "GORACE=atexit_sleep_ms=0")
}
