package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/testagents/fakeagent"
	"github.com/acpsnap/acpsnap/testagents/parallel"
)

// TestMain turns the test binary into the fake agent when the harness
// starts it with fakeagent.Env set (through the manifest's env).
func TestMain(m *testing.M) {
	fakeagent.Main()
	parallel.PerCPU(4) // four tests per CPU: they mostly wait
	os.Exit(m.Run())
}

// scenario is a scenario folder to write for one test.
type scenario struct {
	name       string
	script     fakeagent.Script
	input      string            // input.json
	permission string            // manifest permission
	files      map[string]string // extra files (fixtures, workspace/…), by relative path
}

// write creates the scenario folder under a fresh temporary directory.
func (sc scenario) write(t *testing.T) string {
	t.Helper()
	name := sc.name
	if name == "" {
		name = "fake"
	}
	dir := filepath.Join(t.TempDir(), name)
	script, err := json.Marshal(sc.script)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]any{"version": 1, "scenario": name, "reason": "harness test", "recording": "authored",
		"env": map[string]string{fakeagent.Env: string(script), "SCENARIO_VAR": "from-manifest",
			// A race-enabled fake would sleep 1s at exit while a child it
			// spawned lives; races are still reported.
			"GORACE": "atexit_sleep_ms=0"}}
	if sc.permission != "" {
		m["permission"] = sc.permission
	}
	manifest, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"snapshot.yml": string(manifest), "input.json": sc.input}
	for k, v := range sc.files {
		files[k] = v
	}
	for rel, content := range files {
		writeFile(t, dir, rel, content)
	}
	return dir
}

// run runs dir against the fake agent with short timeouts, then checks
// that no process and no temporary directory of the run is left.
func run(t *testing.T, dir string, edit func(*harness.Config)) (*harness.Result, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir() // must exist: Run does not create it
	cfg := harness.Config{
		Settings: harness.Settings{
			Agent:       []string{exe, "-test.run=^$"},
			StepTimeout: 5 * time.Second,
			Grace:       300 * time.Millisecond,
			TempDir:     tmp,
			Environ:     []string{"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "LEAKY=1"},
		},
		Dir: dir,
	}
	if edit != nil {
		edit(&cfg)
	}
	res, err := harness.Run(context.Background(), cfg)
	assertNoLeftovers(t, tmp)
	return res, err
}

// assertNoLeftovers fails if tmp holds anything or a live process carries
// tmp in its environment (every agent and terminal process of a run does:
// HOME and ACPSNAP_SESSIONS_DIR point into it).
func assertNoLeftovers(t *testing.T, tmp string) {
	t.Helper()
	if entries, err := os.ReadDir(tmp); err == nil && len(entries) > 0 {
		t.Errorf("temporary directory %s not empty after Run: %v", tmp, entries)
	}
	environs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range environs {
		b, err := os.ReadFile(p)
		if err == nil && bytes.Contains(b, []byte(tmp)) {
			cmdline, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "cmdline"))
			t.Errorf("process %s still running after Run: %q", filepath.Base(filepath.Dir(p)), strings.ReplaceAll(string(cmdline), "\x00", " "))
		}
	}
}

// input builds an input.json from steps and extra top-level fields.
func input(t *testing.T, steps []map[string]any, extra map[string]any) string {
	t.Helper()
	m := map[string]any{"steps": steps}
	for k, v := range extra {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func op(name string, kv ...any) map[string]any {
	m := map[string]any{"op": name}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// events returns the log's events of type typ, data only.
func events(t *testing.T, l harness.Log, typ string) []json.RawMessage {
	t.Helper()
	var out []json.RawMessage
	for _, line := range bytes.Split(bytes.TrimSpace(l.Raw), []byte("\n"))[1:] {
		var e struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(line, &e); err != nil {
			t.Fatalf("log line %s: %v", line, err)
		}
		if e.Type == typ {
			out = append(out, e.Data)
		}
	}
	return out
}

func intp(n int) *int { return &n }
