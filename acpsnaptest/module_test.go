package acpsnaptest_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/google/go-cmp/cmp"
)

// corpus is one corpus of the user module in testdata/acpsnaptest, with
// the test function that checks it and its scenarios (recorded in the
// module as committed; TestModule removes the recordings first).
type corpus struct {
	test      string   // the go test function, in package ./acp
	dir       string   // the corpus folder, relative to the module root
	scenarios []string // its scenario folders, in name order
	// breakAgent edits the agent so that its stdout, and only its stdout,
	// changes: an Update accepts it.
	breakAgent func(t *testing.T, corpusDir string)
	// upstream is the live model of an agent that talks to its model over
	// HTTP: a script (llmreplay) served on 127.0.0.1 in the OpenAI chat
	// dialect, one entry per model call of the recordings in order; "":
	// none (a native agent is its own model).
	upstream string
}

// answer is a script entry that streams text.
func answer(text string) string {
	return `{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"text"},` +
		`{"type":"text-delta","index":0,"text":"` + text + `"},{"type":"block-end","index":0},{"type":"finish","reason":"stop"}]}`
}

// corpora are the module's corpora; each gets the whole workflow. Another
// one is a folder in acp/ with its acpsnap.yml, a test function in acp/
// and an entry here.
var corpora = []corpus{
	{test: "TestNative", dir: "acp/native", scenarios: []string{"hello", "multi-turn"}, breakAgent: decorate},
	{test: "TestHTTP", dir: "acp/http", scenarios: []string{"hello", "multi-turn"}, breakAgent: decorate,
		upstream: "[" + answer("Hello over HTTP.") + "," + answer("First answer.") + "," + answer("Second answer.") + "]"},
}

// decorate breaks an agent of the module: it appends "!" to every message
// chunk it sends.
func decorate(t *testing.T, dir string) {
	editFile(t, filepath.Join(dir, "agent.py"), `DECORATION = ""`, `DECORATION = "!"`)
}

// TestModule runs a user's module (testdata/acpsnaptest: its own go.mod,
// two Python agents, one native and one that talks OpenAI chat completions
// over HTTP through acpsnap's proxy) through the whole workflow with go
// test, pasting the commands acpsnaptest prints: every scenario starts
// unrecorded and says how to record it; one is recorded (flag form) while
// the other still fails alone; the other is recorded (env form); the agent
// is broken, the diff says how to accept it, the printed commands accept it
// and it passes again, offline. CI refuses to write unless CI is empty, 0
// or false.
func TestModule(t *testing.T) {
	needModule(t)
	t.Parallel() // each corpus in a module copy of its own, alongside TestModuleWorkflow
	for _, c := range corpora {
		t.Run(c.test, func(t *testing.T) {
			t.Parallel()
			mod := userModule(t)
			unrecord(t, filepath.Join(mod, c.dir))
			m := &module{t: t, dir: mod, test: c.test, env: upstreamEnv(t, c.upstream)}
			out := m.goTest(false, "go test ./acp -run "+c.test)
			var record []string
			for _, s := range c.scenarios {
				record = append(record, m.command(out, "record it with: ", "go test ./acp -run '"+c.test+"/^"+s+"$' -args -acpsnap.record"))
			}
			m.goTest(true, record[0])
			out = m.goTest(false, "go test -v ./acp -run "+c.test)
			m.contains(out, "--- PASS: "+c.test+"/"+c.scenarios[0]+" ")
			m.contains(out, "--- FAIL: "+c.test+"/"+c.scenarios[1]+" ")
			m.goTest(true, m.command(out, "or: ", "ACPSNAP_WRITE=record go test ./acp -run '"+c.test+"/^"+c.scenarios[1]+"$'"))
			m.jsonPasses(m.goTest(true, "go test -json ./acp -run "+c.test), c.scenarios)

			c.breakAgent(t, filepath.Join(mod, c.dir))
			out = m.goTest(false, "go test ./acp -run "+c.test)
			m.contains(out, "diff (-want +got):")
			m.goTest(true, m.command(out, "accept with: ", "go test ./acp -run '"+c.test+"/^"+c.scenarios[0]+"$' -args -acpsnap.update"))
			m.goTest(true, m.command(out, "or: ", "ACPSNAP_WRITE=update go test ./acp -run '"+c.test+"/^"+c.scenarios[1]+"$'"))
			m.goTest(true, "go test ./acp -run "+c.test)

			m.env = nil // the upstream is for recording only: replay is offline
			m.contains(m.goTest(false, "CI=true go test ./acp -run "+c.test+" -args -acpsnap.refresh"), "CI is set")
			m.goTest(true, "CI=false go test ./acp -run "+c.test+" -args -acpsnap.refresh")
		})
	}
}

// moduleEnv set to 1 runs the tests of the user module. Most of their
// some 30 go commands link a test binary of the module, and
// TestModuleWriteModes makes some 170 acpsnap runs (about a minute of CPU
// in all), so a plain go test ./... leaves them to CI, which sets it
// (.ci/run).
const moduleEnv = "ACPSNAP_TEST_MODULE"

// needModule skips a test of the user module unless moduleEnv is 1, in
// -short mode, or without go and python3 (its agents are Python).
func needModule(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("runs go in another module")
	}
	if os.Getenv(moduleEnv) != "1" {
		t.Skipf("runs go in another module, about a minute of CPU: %s=1 runs it, as CI does", moduleEnv)
	}
	for _, tool := range []string{"go", "python3"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
}

// module runs go test commands in a copy of the user module.
type module struct {
	t    *testing.T
	dir  string
	test string
	env  []string // added to the commands' environment
}

// upstreamEnv serves script as the live model and returns the variables
// that point a record run at it (nil for no script).
func upstreamEnv(t *testing.T, script string) []string {
	t.Helper()
	if script == "" {
		return nil
	}
	sc, err := replay.DecodeScript(strings.NewReader(script), "upstream")
	if err != nil {
		t.Fatal(err)
	}
	srv, err := replay.NewServer(replay.ServerConfig{Primary: sc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return []string{"OPENAI_BASE_URL=" + srv.URL(), "OPENAI_API_KEY=sk-upstream-test"}
}

// goTest runs the shell command line in the module and returns its
// output; it fails the test unless the command's success is wantOK.
func (m *module) goTest(wantOK bool, line string) string {
	m.t.Helper()
	cmd := exec.Command("sh", "-c", line)
	cmd.Dir, cmd.Env = m.dir, append(goEnv(), m.env...)
	out, err := cmd.CombinedOutput()
	if (err == nil) != wantOK {
		m.t.Fatalf("%s: %v (want success %v):\n%s", line, err, wantOK, out)
	}
	return string(out)
}

// command returns the command printed after prefix on a line of out, and
// fails unless it is exactly want.
func (m *module) command(out, prefix, want string) string {
	m.t.Helper()
	re := regexp.MustCompile(`(?m)` + regexp.QuoteMeta(prefix) + `(.*` + regexp.QuoteMeta(want) + `.*)$`)
	match := re.FindStringSubmatch(out)
	if match == nil || strings.TrimSpace(match[1]) != want {
		m.t.Fatalf("the output does not print %q after %q:\n%s", want, prefix, out)
	}
	return match[1]
}

func (m *module) contains(out, want string) {
	m.t.Helper()
	if !strings.Contains(out, want) {
		m.t.Fatalf("the output lacks %q:\n%s", want, out)
	}
}

// jsonPasses checks go test -json output: one passing test event per
// scenario and the guards, each under its stable name.
func (m *module) jsonPasses(out string, scenarios []string) {
	m.t.Helper()
	passed := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var ev struct{ Action, Test string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			m.t.Fatalf("go test -json printed a non-JSON line %q: %v", line, err)
		}
		if ev.Action == "pass" && ev.Test != "" {
			passed[ev.Test] = true
		}
	}
	for _, s := range append([]string{"guards"}, scenarios...) {
		if !passed[m.test+"/"+s] {
			m.t.Errorf("go test -json: no pass event for %s/%s:\n%s", m.test, s, out)
		}
	}
}

// userModule copies testdata/acpsnaptest to a temporary folder and points
// its replace directive at this module.
func userModule(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(t.TempDir(), "mod")
	src := filepath.Join(root, "testdata", "acpsnaptest")
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := filepath.Join(dst, strings.TrimPrefix(path, src))
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "mod", "edit", "-replace", "github.com/acpsnap/acpsnap="+root)
	cmd.Dir, cmd.Env = dst, goEnv()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go mod edit: %v\n%s", err, out)
	}
	return dst
}

// goEnv is this environment for the nested go commands: offline (only
// modules already in the module cache, which this module's go.sum
// verified: a dependency added here since testdata/acpsnaptest/go.sum was
// last tidied is taken from the cache without a checksum lookup), no
// workspace, not in CI, no writing mode.
func goEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "CI", "ACPSNAP_WRITE", "GOFLAGS", "GOPROXY", "GOSUMDB", "GOWORK", "OPENAI_BASE_URL", "OPENAI_API_KEY":
		default:
			env = append(env, kv)
		}
	}
	return append(env, "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOWORK=off")
}

// unrecord removes the recordings of the corpus at dir (its pins, every
// scenario's stdout and logs), as a user starts.
func unrecord(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
	for _, p := range append(files, filepath.Join(dir, "pins")) {
		if err := os.RemoveAll(p); err != nil {
			t.Fatal(err)
		}
	}
}

func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s: %q not found", path, old)
	}
	if err := os.WriteFile(path, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeModes are the authored scenarios of the module's acp/http-calls
// (acp/http's agent doing what real agents do) with the replays each
// must pass after every write mode.
var writeModes = []struct {
	scenario string
	replays  int
}{
	{"tool-reuse-id", 3},    // the model's tool-call id is the ACP toolCallId
	{"tool-abs-path", 3},    // read_file of {{cwd}}/notes.txt
	{"error-body-shown", 3}, // a 429 whose body the agent shows verbatim
	{"cancel", 20},          // promptAndCancel at hangAfter 1, after the first text
	{"cancel-slow-text", 3}, // the same, the agent showing that text 400 ms late
}

// TestModuleWriteModes drives the acpsnap CLI (go build of the module's
// tool line) over the module's acp/http-calls, as testagents/conformance
// does for the Go test agent: each scenario, its recordings removed, is
// authored by new -model (which writes what the module commits, byte for
// byte), then refreshed and updated; after each write mode the fixtures
// are unchanged and every one of the scenario's replays passes.
func TestModuleWriteModes(t *testing.T) {
	needModule(t)
	t.Parallel() // a module copy of its own, alongside TestModule's
	mod := userModule(t)
	bin := filepath.Join(t.TempDir(), "acpsnap")
	m := &module{t: t, dir: mod}
	m.goTest(true, "go build -o "+bin+" github.com/acpsnap/acpsnap/cmd/acpsnap")
	corpus := filepath.Join("acp", "http-calls")
	for _, w := range writeModes {
		t.Run(w.scenario, func(t *testing.T) {
			m := &module{t: t, dir: mod}
			dir := filepath.Join(mod, corpus, w.scenario)
			committed := files(t, dir)
			unrecordScenario(t, dir)
			sel := " -dir " + corpus + " -run '^" + w.scenario + "$'"
			for _, mode := range []string{
				bin + " new -dir " + corpus + " -model " + filepath.Join(corpus, w.scenario, "model.json") + " " + w.scenario,
				bin + " refresh" + sel,
				bin + " update" + sel,
			} {
				name := strings.Fields(strings.TrimPrefix(mode, bin))[0]
				m.goTest(true, mode)
				if d := cmp.Diff(committed, files(t, dir)); d != "" {
					t.Fatalf("after %s the fixtures differ from the committed ones (-committed +%s):\n%s", name, name, d)
				}
				replayAll(t, mod, bin+" run"+sel, w.replays, name)
			}
		})
	}
}

// replayAll runs the replay command line n times in the module, one per
// CPU at once, and fails the test unless every run passes.
func replayAll(t *testing.T, mod, line string, n int, after string) {
	t.Helper()
	outs, errs := make([][]byte, n), make([]error, n)
	slots := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			slots <- struct{}{}
			defer func() { <-slots }()
			cmd := exec.Command("sh", "-c", line)
			cmd.Dir, cmd.Env = mod, goEnv()
			outs[i], errs[i] = cmd.CombinedOutput()
		})
	}
	wg.Wait()
	passed := 0
	for i, err := range errs {
		if err != nil {
			t.Errorf("replay %d of %d after %s: %v\n%s", i+1, n, after, err, outs[i])
			continue
		}
		passed++
	}
	t.Logf("after %s: %d/%d replays passed", after, passed, n)
	if passed != n {
		t.FailNow()
	}
}

// files returns every file below dir by its relative path.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		got[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// unrecordScenario removes a scenario's recordings (its stdout and logs).
func unrecordScenario(t *testing.T, dir string) {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(logs) == 0 {
		t.Fatalf("%s: no recordings to remove", dir)
	}
	for _, p := range logs {
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
}
