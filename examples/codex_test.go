package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCodexRequestDrift changes the prompt of one codex-acp scenario in a
// copy of the corpus and replays it offline: codex-acp then sends a request
// that was never recorded, and the run fails with the request-drift
// message naming the JSON path that changed, both values, and refresh as
// the way to accept it (the scenario is authored from its model.json).
func TestCodexRequestDrift(t *testing.T) {
	path := agentPath(t)
	if !lookPath("codex-acp", path) {
		t.Skipf("codex-acp is not installed (%s)", installHint)
	}
	dir := filepath.Join(t.TempDir(), "codex-acp")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"acpsnap.yml", "home", "pins", "text-turn"} {
		src := filepath.Join("codex-acp", f)
		st, err := os.Stat(src)
		if err != nil {
			t.Fatal(err)
		}
		if !st.IsDir() {
			b, err := os.ReadFile(src)
			if err == nil {
				err = os.WriteFile(filepath.Join(dir, f), b, 0o644)
			}
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.CopyFS(filepath.Join(dir, f), os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	in := filepath.Join(dir, "text-turn", "input.json")
	b, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(b), `"Say hello."`, `"Say goodbye."`, 1)
	if edited == string(b) {
		t.Fatalf("%s has no prompt \"Say hello.\" to change", in)
	}
	if err := os.WriteFile(in, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}

	acpsnap := filepath.Join(t.TempDir(), "acpsnap")
	if out, err := exec.Command("go", "build", "-o", acpsnap, "../cmd/acpsnap").CombinedOutput(); err != nil {
		t.Fatalf("build acpsnap: %v\n%s", err, out)
	}
	cmd := exec.Command(acpsnap, "run", "-offline", "-parallel", "1", "-dir", dir)
	cmd.Env = append(os.Environ(), "PATH="+path)
	out, err := cmd.CombinedOutput()
	if strings.Contains(string(out), "-offline:") && strings.Contains(string(out), "namespace") {
		t.Skipf("no loopback-only network namespace here, and the examples never run online:\n%s", out)
	}
	if err == nil {
		t.Fatalf("a changed prompt replayed without failing:\n%s", out)
	}
	for _, want := range []string{
		"FAIL  text-turn",
		"request drift: POST /v1/responses (request 1) matches no recorded exchange; nearest recorded call 1 differs at:",
		`$.input[2].content[0].text: recorded "Say hello.", request "Say goodbye."`,
		"acpsnap refresh -dir " + dir + " -run '^text-turn$'",
		"0 passed, 1 failed",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
