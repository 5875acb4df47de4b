package conformance

import (
	"context"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/wire"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
	"github.com/acpsnap/acpsnap/model"
)

// TestMain turns the test binary into the conformance agent when the
// harness starts it with Env set (through the corpus's agent.env).
func TestMain(m *testing.M) {
	Main()
	code := m.Run()
	roots.Close()
	os.Exit(code)
}

// roots are the private roots every run of the suite recycles, as the runs
// of one acpsnap run do (check.Run): the suite's thousand runs would make
// four folders each.
var roots harness.RootPool

var dialects = dialect.Names()

// corpus writes a corpus for dialect under a fresh folder: acpsnap.yml
// starting this test binary as the agent, with extra lines of yml (agent:
// lines indented under agent, the others after model).
func corpus(t *testing.T, dialect, agent, yml string) string {
	t.Helper()
	root := t.TempDir()
	write(t, filepath.Join(root, scenario.CorpusFile), "version: 1\n"+
		"agent:\n  command: ["+quote(os.Args[0])+", \"-test.run=^$\"]\n"+agent+
		"  env: {"+Env+": \"1\", CONF_URL: \"{{model.url}}\", CONF_KEY: \"{{model.key}}\", CONF_DIALECT: "+dialect+", GORACE: \"atexit_sleep_ms=0\"}\n"+
		"model:\n  dialect: "+dialect+"\n"+yml)
	return root
}

// scene is one authored scenario of the suite.
type scene struct {
	name  string
	env   map[string]string // the manifest's env: the agent's behaviour
	input string            // input.json; "": initialize, newSession, one prompt
	model string            // model.json
	files map[string]string // more files of the folder (workspace/…)
	// manifest holds more lines of snapshot.yml.
	manifest string
	// racing: the scene's model calls run at once, so two recordings may
	// order them differently (replay matches each request to its answer).
	racing bool
	// want are strings stdout.expected.jsonl must hold once written.
	want []string
}

const defaultInput = `{"steps":[{"op":"initialize"},{"op":"newSession"},{"op":"prompt","text":"What does notes.txt say?"}]}`

func (sc scene) write(t *testing.T, root string) string {
	t.Helper()
	dir := filepath.Join(root, sc.name)
	var env []string
	for k, v := range sc.env {
		env = append(env, k+": "+quote(v))
	}
	write(t, filepath.Join(dir, scenario.ManifestFile), "version: 1\nscenario: "+sc.name+"\nreason: conformance\nrecording: authored\n"+
		"env: {"+strings.Join(env, ", ")+"}\n"+sc.manifest)
	input := sc.input
	if input == "" {
		input = defaultInput
	}
	write(t, filepath.Join(dir, scenario.InputFile), input)
	write(t, filepath.Join(dir, "model.json"), sc.model)
	write(t, filepath.Join(dir, "workspace", "notes.txt"), "remember the milk\n")
	for name, body := range sc.files {
		write(t, filepath.Join(dir, name), body)
	}
	return dir
}

func write(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// config is the check configuration of a corpus.
func config(t *testing.T, root string, mode check.Mode) check.Config {
	t.Helper()
	c, err := scenario.LoadCorpus(root)
	if err != nil {
		t.Fatal(err)
	}
	return check.Config{Settings: harness.Settings{Mode: mode, Environ: []string{"PATH=" + os.Getenv("PATH")}, StepTimeout: 20 * time.Second, Pool: &roots}, Corpus: c}
}

// author is `acpsnap new -model`: the scenario recorded against its model.json.
func author(t *testing.T, dir string) check.Outcome {
	t.Helper()
	m, err := check.LoadModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	return check.Scripted(context.Background(), dir, m, config(t, filepath.Dir(dir), check.Record))
}

// replays runs n replays of dir at once (a replay only reads the
// scenario, each in private folders of its own) and fails the test unless
// every one passes.
func replays(t *testing.T, dir string, n int, after string) {
	t.Helper()
	cfg := config(t, filepath.Dir(dir), check.Replay)
	outcomes := make([]check.Outcome, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { outcomes[i] = check.Check(context.Background(), dir, cfg) })
	}
	wg.Wait()
	failed := false
	for i, o := range outcomes {
		if o.Status != check.Passed {
			t.Errorf("replay %d after %s: %s: %s\n%s", i+1, after, o.Status, o.Reason, o.Diff)
			failed = true
		}
	}
	if failed {
		t.FailNow()
	}
}

// toolRead is a model that reads notes.txt with a tool call of id id,
// then answers.
func toolRead(id, path string) string {
	return `[{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"tool-call"},` +
		`{"type":"tool-call-delta","index":0,"id":"` + id + `","name":"read","argumentsDelta":"{\"path\":\"` + path + `\"}"},` +
		`{"type":"block-end","index":0},{"type":"finish","reason":"tool-calls"}]},` +
		`{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"text"},{"type":"text-delta","index":0,"text":"It says: remember the milk."},` +
		`{"type":"block-end","index":0},{"type":"finish","reason":"stop"}]}]`
}

// answer is a model entry that streams text.
func answer(text string) string {
	return `{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"text"},{"type":"text-delta","index":0,"text":"` + text + `"},` +
		`{"type":"block-end","index":0},{"type":"finish","reason":"stop"}]}`
}

// sideModel answers the title call by match, wherever it arrives, and
// the turn by position.
const sideModel = `[{"kind":"chunks","match":"Title this conversation","chunks":[{"type":"block-start","index":0,"blockType":"text"},` +
	`{"type":"text-delta","index":0,"text":"Milk"},{"type":"block-end","index":0},{"type":"finish","reason":"stop"}]},` + `{"kind":"chunks","chunks":[` +
	`{"type":"block-start","index":0,"blockType":"text"},{"type":"text-delta","index":0,"text":"Hello."},{"type":"block-end","index":0},{"type":"finish","reason":"stop"}]}]`

// systemPrompt is the system prompt of the agent's turns (a side call has
// none): a pin of the corpus.
const systemPrompt = "You are the conformance agent."

// cancelInput prompts and cancels at the proxy's hang point.
const cancelInput = `{"steps":[{"op":"initialize"},{"op":"newSession"},{"op":"promptAndCancel","text":"Write a long story."}]}`

// firstContent is the number of events of dialect's rendering of a text
// answer up to and including the first that carries its text.
func firstContent(t *testing.T, name, text string) int {
	t.Helper()
	chunks := []model.Chunk{{Type: model.BlockStart, BlockType: model.BlockText}, {Type: model.TextDelta, Text: text},
		{Type: model.TextDelta, Text: storyEnd}, {Type: model.BlockEnd}, {Type: model.Finish, Reason: model.FinishStop}}
	d, err := dialect.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range d.Codec.Render(wire.Response{ID: "r", Model: "m", Chunks: chunks}) {
		if strings.Contains(string(e.Bytes()), text) {
			return i + 1
		}
	}
	t.Fatalf("%s: no event carries %q", name, text)
	return 0
}

// storyEnd is the second text of the cancel scenes' answer: the story goes
// on after its first text, so a cancel right after that text comes before
// the answer's end in every dialect (Gemini sends finishReason with the
// last text, so a one-text answer has no cancel point after its text).
const storyEnd = ", the end."

// cancelScene cancels the first call after the proxy sent after events,
// the agent's behaviour set by env; after > 0: the text of those events
// is on stdout.
func cancelScene(name string, after int, env map[string]string) scene {
	story := `{"kind":"chunks","chunks":[{"type":"block-start","index":0,"blockType":"text"},` +
		`{"type":"text-delta","index":0,"text":"Once upon a time"},{"type":"text-delta","index":0,"text":"` + storyEnd + `"},` +
		`{"type":"block-end","index":0},{"type":"finish","reason":"stop"}]}`
	var want []string
	if after > 0 {
		want = []string{`"text":"Once upon a time"`}
	}
	return scene{name: name, env: env, input: cancelInput, model: `[` + story + `]`, want: want,
		manifest: "replay: { override: true }\n",
		files:    map[string]string{"replay.override.json": fmt.Sprintf(`{"patches":[{"call":1,"hangAfter":%d}]}`, after)}}
}

// scenes are what real agents do, one scenario each.
func scenes(t *testing.T, dialect string) []scene {
	return []scene{
		// Cancel before anything streamed, and right after the first text.
		cancelScene("cancel-at-start", 0, nil),
		cancelScene("cancel-after-text", firstContent(t, dialect, "Once upon a time"), nil),
		// The same, on an agent that shows the text 400 ms after it got
		// it: the cancel waits for the text, not for a quiet stdout.
		cancelScene("cancel-after-slow-text", firstContent(t, dialect, "Once upon a time"), map[string]string{"CONF_SLOW_TEXT_MS": "400"}),
		// Most agents reuse the model's tool-call id as the ACP toolCallId.
		{name: "tool-reuse-id", env: map[string]string{"CONF_IDS": "reuse"}, model: toolRead("call_1", "notes.txt")},
		{name: "tool-mint-id", env: map[string]string{"CONF_IDS": "mint"}, model: toolRead("call_1", "notes.txt")},
		// A placeholder in model.json means the live value in every mode.
		{name: "tool-abs-path", model: toolRead("call_1", "{{cwd}}/notes.txt")},
		{name: "tool-rel-title", env: map[string]string{"CONF_PATHS": "rel"}, model: toolRead("call_1", "{{cwd}}/notes.txt")},
		// A title and a result spelled relative to "/" (tmp/acpsnap-…/workspace/notes.txt).
		{name: "tool-root-title", env: map[string]string{"CONF_PATHS": "root"}, model: toolRead("call_1", "{{cwd}}/notes.txt"),
			want: []string{`{{cwdRel}}/notes.txt`}},
		{name: "tool-token-id", model: toolRead("{{toolCall:1}}", "notes.txt")},
		// A side call (a title) in parallel with the turn: its entry says
		// which request it answers, and each call names its own pins.
		{name: "side-call", env: map[string]string{"CONF_SIDE": "1"}, racing: true, model: sideModel,
			want: []string{`"title":"Milk"`, `"text":"Hello."`}},
		// The side call arriving first, every time (the race's other order).
		{name: "side-call-first", env: map[string]string{"CONF_SIDE": "first"}, model: sideModel,
			want: []string{`"title":"Milk"`, `"text":"Hello."`}},

		// A throw's error body, shown verbatim by the agent, then a retry.
		{name: "throw-shown", model: `[{"kind":"throw","chunks":[],"message":"slow down","code":"RATE_LIMIT"},` + answer("After the retry.") + `]`},
		// A status override's body, keys unsorted and spaced, shown verbatim.
		{name: "override-shown", model: `[` + answer("After the retry.") + `]`,
			manifest: "replay: { override: true }\n",
			files:    map[string]string{"replay.override.json": `{"patches":[{"call":1,"status":429,"body":{"error": {"type": "rate_limit", "message": "slow down"}}}]}`}},
	}
}

// TestConformance: every scene, in every dialect, replays green three
// times after new -model; refresh (which re-renders it and replays the
// result before publishing) and update then pass and leave the corpus byte
// for byte as new -model wrote it, so the fixture the replays proved is
// the one every write mode keeps. A scene whose model calls race may be
// written in another order: it replays three times after each mode.
func TestConformance(t *testing.T) {
	t.Parallel() // beside the other tests that wait (TestCancelPointNeverShown, TestReady)
	// A scene waits more than it computes (the slow exit's second, a
	// slow agent's first text, the ready timer): four run at once per CPU, where
	// t.Parallel would allow one.
	slots := make(chan struct{}, 4*runtime.GOMAXPROCS(0))
	type task struct {
		d  string
		sc scene
	}
	var tasks []task
	for _, d := range dialects {
		for _, sc := range scenes(t, d) {
			tasks = append(tasks, task{d, sc})
		}
	}
	// A slow exit whose child outlives the agent by 600 ms (more than the
	// 500 ms the harness once let a group take to empty), within the grace:
	// how an agent exits is the same in every dialect, so one is enough.
	tasks = append(tasks, task{dialects[0], scene{name: "slow-exit", env: map[string]string{"CONF_SLOW_EXIT_MS": "100", "CONF_SLOW_CHILD_MS": "600"}, model: `[` + answer("Bye.") + `]`}})
	// The scenes that wait longest (a slow exit, a slow first text: seconds
	// over their seven runs) start first, so the others fill the slots
	// around them instead of leaving them to run alone at the end.
	slices.SortStableFunc(tasks, func(a, b task) int { return int(b.sc.waits() - a.sc.waits()) })
	var wg sync.WaitGroup
	defer wg.Wait()
	for _, k := range tasks {
		slots <- struct{}{}
		wg.Go(func() {
			defer func() { <-slots }()
			t.Run(k.d+"/"+k.sc.name, func(t *testing.T) { conform(t, k.d, k.sc) })
		})
	}
}

// waits is how long a run of the scene waits on the agent on purpose.
func (sc scene) waits() time.Duration {
	exit := millis(sc.env["CONF_SLOW_EXIT_MS"], 0)
	if exit > 0 {
		exit += millis(sc.env["CONF_SLOW_CHILD_MS"], 800*time.Millisecond)
	}
	return exit + millis(sc.env["CONF_SLOW_TEXT_MS"], 0)
}

// conform is TestConformance's proof for one scene in one dialect.
func conform(t *testing.T, d string, sc scene) {
	// The agent always sends a timer-driven update after session/new,
	// which the corpus's ready waits for.
	root := corpus(t, d, "", "ready: { update: available_commands_update }\nfloating: [session_info_update]\n")
	if sc.env == nil {
		sc.env = map[string]string{}
	}
	sc.env["CONF_READY"] = "1"
	dir := sc.write(t, root)
	if o := author(t, dir); o.Status != check.Passed {
		t.Fatalf("new -model: %s: %s\n%s", o.Status, o.Reason, o.Diff)
	}
	stdout, _ := os.ReadFile(filepath.Join(dir, scenario.StdoutFile))
	for _, w := range sc.want {
		if !strings.Contains(string(stdout), w) {
			t.Errorf("stdout.expected.jsonl lacks %s:\n%s", w, stdout)
		}
	}
	pins := filepath.Join(root, scenario.PinsDir)
	name, _ := httplog.FileName(httplog.Placeholder(httplog.PinSystem, []byte(systemPrompt)))
	if b, err := os.ReadFile(filepath.Join(pins, name)); string(b) != systemPrompt {
		t.Errorf("new -model pinned the system prompt %q (%v), want the turn's %q", b, err, systemPrompt)
	}
	replays(t, dir, 3, "new -model")
	written, pinned := snapshot(t, root), snapshot(t, pins)
	for _, mode := range []check.Mode{check.Refresh, check.Update} {
		if o := check.Check(context.Background(), dir, config(t, root, mode)); o.Status != check.Passed {
			t.Fatalf("%s: %s: %s\n%s", mode, o.Status, o.Reason, o.Diff)
		}
		if sc.racing { // another order of the same calls: what was written is replayed
			if d := cmp.Diff(pinned, snapshot(t, pins)); d != "" {
				t.Errorf("%s changed the pins new -model wrote (-new +%s):\n%s", mode, mode, d)
			}
			replays(t, dir, 3, string(mode))
			continue
		}
		if d := cmp.Diff(written, snapshot(t, root)); d != "" {
			t.Fatalf("%s changed the corpus new -model wrote (-new +%s):\n%s", mode, mode, d)
		}
	}
}

// TestGraceBound: a corpus's agent.grace bounds how long the agent's
// process group may take to empty, and the failure names that bound. The
// agent exits 1 ms after its last word, its child 800 ms later: the grace
// (600 ms) leaves the agent's own exit a wide margin on a loaded machine
// (with 100 ms and a 300 ms grace, CI saw the agent itself miss it), and
// the child only outlives it by more when the machine is slow.
func TestGraceBound(t *testing.T) {
	root := corpus(t, "openai-chat", "  grace: 600ms\n", "")
	dir := scene{name: "slow-exit", env: map[string]string{"CONF_SLOW_EXIT_MS": "1"}, model: `[` + answer("Bye.") + `]`}.write(t, root)
	o := author(t, dir)
	want := "left processes running in its process group for longer than the grace of 600ms"
	if o.Status != check.Failed || !strings.Contains(o.Reason, want) {
		t.Fatalf("new -model: %s: %s; want a failure saying %q", o.Status, o.Reason, want)
	}
	if _, err := os.Stat(filepath.Join(dir, scenario.StdoutFile)); err == nil {
		t.Error("a failed new -model wrote stdout.expected.jsonl")
	}
}

// TestCancelPointNeverShown: an agent that never shows the text streamed
// before the hang point fails the promptAndCancel step within its time,
// and the failure names what was awaited and what was shown.
func TestCancelPointNeverShown(t *testing.T) {
	t.Parallel() // it waits out a step's 1.5 s; the parallel tests fill that time
	root := corpus(t, "openai-chat", "", "")
	sc := cancelScene("cancel-never-shown", firstContent(t, "openai-chat", "Once upon a time"), map[string]string{"CONF_SLOW_TEXT_MS": "60000"})
	sc.input = strings.Replace(cancelInput, `"Write a long story."`, `"Write a long story.","timeoutMs":1500`, 1)
	o := author(t, sc.write(t, root))
	want := `timed out after 1.5s waiting for the agent's stdout to show what the model streamed before the hang point, text "Once upon a time" (shown so far: nothing)`
	if o.Status != check.Failed || !strings.Contains(o.Reason, want) {
		t.Fatalf("new -model: %s: %s; want a failure saying %q", o.Status, o.Reason, want)
	}
}

// TestReady: acpsnap.yml's ready.update makes every newSession wait for
// the agent's timer-driven update, so it precedes the first prompt's
// output in every scenario, without a step of its own.
func TestReady(t *testing.T) {
	t.Parallel()
	root := corpus(t, "openai-chat", "", "ready: { update: available_commands_update }\n")
	dir := scene{name: "ready-timer", env: map[string]string{"CONF_READY": "1", "CONF_READY_MS": "300"}, model: `[` + answer("Hello.") + `]`}.write(t, root)
	if o := author(t, dir); o.Status != check.Passed {
		t.Fatalf("new -model: %s: %s\n%s", o.Status, o.Reason, o.Diff)
	}
	b, err := os.ReadFile(filepath.Join(dir, scenario.StdoutFile))
	if err != nil {
		t.Fatal(err)
	}
	ready, chunk := strings.Index(string(b), "available_commands_update"), strings.Index(string(b), "agent_message_chunk")
	if ready < 0 || chunk < 0 || ready > chunk {
		t.Errorf("the ready update (at %d) does not precede the first chunk (at %d):\n%s", ready, chunk, b)
	}
}

// TestUnstableNeverWritten: an agent whose output differs on every run
// gets no fixture from any write mode; each says why, with the diff, and
// leaves the scenario's files exactly as they were.
func TestUnstableNeverWritten(t *testing.T) {
	t.Parallel()
	root := corpus(t, "openai-chat", "", "")
	dir := scene{name: "noise", env: map[string]string{"CONF_NOISE": "1"}, model: `[` + answer("Hello.") + `]`}.write(t, root)
	before := snapshot(t, dir)
	o := author(t, dir)
	if o.Status != check.Failed || !strings.Contains(o.Reason, "does not replay") || o.Diff == "" {
		t.Fatalf("new -model: %s: %s\n%s; want a failure with the diff", o.Status, o.Reason, o.Diff)
	}
	if strings.Contains(o.Reason+o.Diff, ".publish-") {
		t.Errorf("the refusal names the hidden stage instead of %s:\n%s\n%s", dir, o.Reason, o.Diff)
	}
	if d := cmp.Diff(before, snapshot(t, dir)); d != "" {
		t.Errorf("new -model changed the scenario (-before +after):\n%s", d)
	}
	if entries, _ := os.ReadDir(root); len(entries) != 2 {
		t.Errorf("%d entries in the corpus, want acpsnap.yml and the scenario (no staged copy left): %v", len(entries), entries)
	}
	// A scenario recorded from a stable agent, which then turns unstable:
	// refresh and update refuse to write what would not replay.
	stable := scene{name: "noise", model: `[` + answer("Hello.") + `]`}
	stable.write(t, root)
	if o := author(t, dir); o.Status != check.Passed {
		t.Fatalf("new -model: %s: %s", o.Status, o.Reason)
	}
	scene{name: "noise", env: map[string]string{"CONF_NOISE": "1"}, model: `[` + answer("Hello.") + `]`}.write(t, root)
	before = snapshot(t, dir)
	for _, mode := range []check.Mode{check.Refresh, check.Update} {
		o := check.Check(context.Background(), dir, config(t, root, mode))
		if o.Status != check.Failed || o.Diff == "" {
			t.Errorf("%s: %s: %s; want a failure with the diff", mode, o.Status, o.Reason)
		}
		if d := cmp.Diff(before, snapshot(t, dir)); d != "" {
			t.Errorf("%s changed the scenario (-before +after):\n%s", mode, d)
		}
	}
}

// snapshot reads every file under dir, by relative path.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRandomScripts is the property: a random model script (text,
// reasoning, tool calls with random ids, errors with bodies) through each
// dialect, recorded by new -model, replays equal.
func TestRandomScripts(t *testing.T) {
	t.Parallel()
	for _, d := range dialects {
		for seed := int64(1); seed <= 2; seed++ {
			t.Run(fmt.Sprintf("%s/seed-%d", d, seed), func(t *testing.T) {
				t.Parallel()
				rng := rand.New(rand.NewSource(seed))
				root := corpus(t, d, "", "")
				dir := scene{name: "random", model: randomScript(rng)}.write(t, root)
				if o := author(t, dir); o.Status != check.Passed {
					t.Fatalf("new -model: %s: %s\n%s\nmodel: %s", o.Status, o.Reason, o.Diff, randomScript(rand.New(rand.NewSource(seed))))
				}
				replays(t, dir, 1, "new -model")
			})
		}
	}
}

// randomScript is a model.json for one prompt: up to three tool calls
// (each reading notes.txt, by a random id), maybe a 429 (which the agent
// retries once), then a text answer, any step with reasoning first.
func randomScript(rng *rand.Rand) string {
	var entries []string
	word := func() string { return fmt.Sprintf("w%x", rng.Int63()) }
	reasoning := func() string {
		if rng.Intn(2) == 0 {
			return ""
		}
		return `{"type":"block-start","index":0,"blockType":"reasoning"},{"type":"reasoning-delta","index":0,"text":"` + word() + `"},{"type":"block-end","index":0},`
	}
	at := func(r string) int {
		if r == "" {
			return 0
		}
		return 1
	}
	if rng.Intn(3) == 0 {
		entries = append(entries, `{"kind":"throw","chunks":[],"message":"slow `+word()+`","code":"RATE_LIMIT"}`)
	}
	for range rng.Intn(4) {
		r := reasoning()
		i := at(r)
		entries = append(entries, fmt.Sprintf(`{"kind":"chunks","chunks":[%s{"type":"block-start","index":%d,"blockType":"tool-call"},`+
			`{"type":"tool-call-delta","index":%d,"id":"%s","name":"read","argumentsDelta":"{\"path\":\"notes.txt\"}"},{"type":"block-end","index":%d},`+
			`{"type":"finish","reason":"tool-calls"}]}`, r, i, i, []string{"call_", "toolu_", "fc_", ""}[rng.Intn(4)]+word(), i))
	}
	r := reasoning()
	i := at(r)
	entries = append(entries, fmt.Sprintf(`{"kind":"chunks","chunks":[%s{"type":"block-start","index":%d,"blockType":"text"},{"type":"text-delta","index":%d,"text":"%s %s"},`+
		`{"type":"block-end","index":%d},{"type":"finish","reason":"stop"}]}`, r, i, i, word(), word(), i))
	return "[" + strings.Join(entries, ",") + "]"
}

// TestSideCallOrder: a side call recorded before the turn's first call
// replays when it comes after it, in every dialect: each request finds its
// recorded call by fingerprint, and the pins stay the turn's. A value of
// each call's own (a request id) is numbered as the recording numbered it,
// whichever call comes first: no ignore or scrub rule is needed.
func TestSideCallOrder(t *testing.T) {
	t.Parallel()
	type testCase struct {
		name, dialect string
		env           map[string]string
		want          check.Status
	}
	var cases []testCase
	for _, d := range dialects {
		cases = append(cases, testCase{name: d, dialect: d, want: check.Passed})
	}
	id := map[string]string{"CONF_REQUEST_ID": "1"}
	cases = append(cases,
		testCase{name: "request-id", dialect: "openai-chat", env: id, want: check.Passed})
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := corpus(t, c.dialect, "", "ready: { update: available_commands_update }\nfloating: [session_info_update]\n")
			env := map[string]string{"CONF_READY": "1", "CONF_SIDE": "first"}
			for k, v := range c.env {
				env[k] = v
			}
			sc := scene{name: "side-call", env: env, model: sideModel}
			dir := sc.write(t, root)
			if o := author(t, dir); o.Status != check.Passed {
				t.Fatalf("new -model: %s: %s\n%s", o.Status, o.Reason, o.Diff)
			}
			// The replays: the turn's first call comes first.
			manifest := filepath.Join(dir, scenario.ManifestFile)
			b, _ := os.ReadFile(manifest)
			if !strings.Contains(string(b), `CONF_SIDE: "first"`) {
				t.Fatalf("%s does not say CONF_SIDE: \"first\":\n%s", manifest, b)
			}
			write(t, manifest, strings.Replace(string(b), `CONF_SIDE: "first"`, `CONF_SIDE: "last"`, 1))
			o := check.Check(context.Background(), dir, config(t, root, check.Replay))
			if o.Status != c.want {
				t.Errorf("replay, the other order: %s, want %s: %s\n%s", o.Status, c.want, o.Reason, o.Diff)
			}
			if c.want == check.Passed {
				replays(t, dir, 2, "new -model, in the other order")
			}
		})
	}
}

// TestBrokenNeverWritten: an agent that breaks a rule of the protocol (a
// cancel answered end_turn, an update of a tool call it never announced)
// gets no fixture from new -model, refresh or record, and fails a replay
// of the scenario it once passed; each failure names the rule. The same
// scenarios of the agent that keeps the rule are written and replay.
func TestBrokenNeverWritten(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, rule string
		scene      scene
	}{
		{"cancel-end-turn", "cancelled-stop-reason", cancelScene("cancel", firstContent(t, "openai-chat", "Once upon a time"), nil)},
		{"unannounced", "announced-tool-call", scene{name: "tool", model: toolRead("call_1", "notes.txt")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			root := corpus(t, "openai-chat", "", "")
			broken := c.scene
			broken.env = map[string]string{"CONF_BREAK": c.name}
			dir := broken.write(t, root)
			want := "rule " + c.rule + ": "
			refused := func(mode string, o check.Outcome) {
				t.Helper()
				if o.Status != check.Failed || !strings.Contains(o.Reason, want) || !strings.Contains(o.Reason, "the spec: ") {
					t.Errorf("%s: %s: %s; want a failure naming %q and the spec's words", mode, o.Status, o.Reason, want)
				}
			}
			before := snapshot(t, dir)
			refused("new -model", author(t, dir))
			if d := cmp.Diff(before, snapshot(t, dir)); d != "" {
				t.Errorf("new -model changed the scenario (-before +after):\n%s", d)
			}

			// Written while the agent kept the rule, then broken.
			c.scene.write(t, root)
			if o := author(t, dir); o.Status != check.Passed {
				t.Fatalf("new -model of the conforming agent: %s: %s\n%s", o.Status, o.Reason, o.Diff)
			}
			replays(t, dir, 2, "new -model")
			broken.write(t, root)
			before = snapshot(t, dir)
			refused("run", check.Check(context.Background(), dir, config(t, root, check.Replay)))
			refused("refresh", check.Check(context.Background(), dir, config(t, root, check.Refresh)))
			refused("record", recordLive(t, dir))
			if d := cmp.Diff(before, snapshot(t, dir)); d != "" {
				t.Errorf("a write mode changed the scenario of the broken agent (-before +after):\n%s", d)
			}
		})
	}
}

// recordLive records dir as a live scenario (acpsnap record) against a
// scripted upstream on 127.0.0.1 serving its model.json.
func recordLive(t *testing.T, dir string) check.Outcome {
	t.Helper()
	manifest := filepath.Join(dir, scenario.ManifestFile)
	b, _ := os.ReadFile(manifest)
	write(t, manifest, strings.Replace(string(b), "recording: authored", "recording: live", 1))
	defer write(t, manifest, string(b))
	model, err := check.LoadModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	model.Dialect = "openai-chat"
	srv, err := replay.NewServer(model)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := config(t, filepath.Dir(dir), check.Record)
	cfg.Secrets = map[string]string{"OPENAI_BASE_URL": srv.URL(), "OPENAI_API_KEY": "sk-local"}
	return check.Check(context.Background(), dir, cfg)
}
