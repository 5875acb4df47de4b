package probe

import (
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/harness/proc"
)

// runWith is a run whose stdout and first request body are the given
// texts, shut down on stdin EOF in 10 ms.
func runWith(stdout, body string) Run {
	return Run{
		Stdout:   []byte(stdout),
		Requests: []Request{{Method: "POST", Path: "/chat/completions", Body: []byte(body)}},
		Calls:    []Call{{At: 5 * time.Millisecond, Done: 6 * time.Millisecond, Served: true, Path: "/chat/completions"}},
		Steps:    []Step{{Op: "initialize", End: time.Millisecond}, {Op: "newSession", Start: time.Millisecond, End: 2 * time.Millisecond}, {Op: "prompt", Start: 2 * time.Millisecond, End: 8 * time.Millisecond}},
		Shutdown: Shutdown{How: proc.ExitedOnEOF.String(), EOF: 10 * time.Millisecond},
	}
}

func TestVariance(t *testing.T) {
	const update = `{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":%q,"n":%s}}}` + "\n"
	type tc struct {
		name   string
		runs   []Run
		ignore []string
		want   []Variance
	}
	for _, c := range []tc{
		{name: "same", runs: []Run{runWith(`{"id":1}`, `{"a":1}`), runWith(`{"id":1}`, `{"a":1}`)}},
		{
			name: "stdout number",
			runs: []Run{runWith(fmt.Sprintf(update, "x", "1"), `{}`), runWith(fmt.Sprintf(update, "x", "22"), `{}`)},
			want: []Variance{{Where: "stdout", At: "line 1 (session/update x)", Path: "$.params.update.n", Values: []string{"1", "22"},
				Suggest: Setting{"scrub", `{ pattern: '("n":\s*)-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?', replace: '${1}0' }`}}},
		},
		{
			name: "stdout date inside text",
			runs: []Run{runWith(`{"text":"Today is 2026-12-01, hi"}`, `{}`), runWith(`{"text":"Today is 2026-12-02, hi"}`, `{}`)},
			want: []Variance{{Where: "stdout", At: "line 1 (response null)", Path: "$.text", Values: []string{`"Today is 2026-12-01, hi"`, `"Today is 2026-12-02, hi"`},
				Suggest: Setting{"scrub", `{ pattern: '("text":\s*"Today is 2026-12-)\d+(, hi")', replace: '${1}{{text}}${2}' }`}}},
		},
		{
			name: "an update that moves",
			runs: []Run{
				runWith(fmt.Sprintf(update, "a", "1")+fmt.Sprintf(update, "b", "1"), `{}`),
				runWith(fmt.Sprintf(update, "b", "1")+fmt.Sprintf(update, "a", "1"), `{}`),
			},
			want: []Variance{{Where: "stdout", At: "line 1 (session/update a)", Values: []string{"moves between runs"}, Suggest: Setting{"floating", "a"}}},
		},
		{
			name: "an update in one run only",
			runs: []Run{runWith(fmt.Sprintf(update, "a", "1"), `{}`), runWith(fmt.Sprintf(update, "a", "1")+fmt.Sprintf(update, "usage", "0"), `{}`)},
			want: []Variance{{Where: "stdout", At: "line 2 (session/update usage)", Values: []string{"absent", "present"}, Suggest: Setting{"floating", "usage"}}},
		},
		{
			// A scrub, not model.ignore: the composed log holds the value too.
			name: "request id",
			runs: []Run{runWith(`{}`, `{"m":{"trace":"8f3a"}}`), runWith(`{}`, `{"m":{"trace":"c01d"}}`)},
			want: []Variance{{Where: "request", At: "call 1 (POST /chat/completions)", Path: "$.m.trace", Values: []string{`"8f3a"`, `"c01d"`},
				Suggest: Setting{"scrub", `{ pattern: '("trace":\s*")[0-9a-f]+(")', replace: '${1}{{trace}}${2}' }`}}},
		},
		{
			name: "a request list of another length: no scrub, ignore",
			runs: []Run{runWith(`{}`, `{"m":[1,2]}`), runWith(`{}`, `{"m":[1,2,3]}`)},
			want: []Variance{{Where: "request", At: "call 1 (POST /chat/completions)", Path: "$.m", Values: []string{`[1,2]`, `[1,2,3]`},
				Suggest: Setting{"model.ignore", "/m"}}},
		},
		{
			name:   "request id ignored",
			runs:   []Run{runWith(`{}`, `{"m":{"trace":"8f3a"}}`), runWith(`{}`, `{"m":{"trace":"c01d"}}`)},
			ignore: []string{"/m"},
		},
		{
			name: "request date inside the prompt: scrub, not ignore",
			runs: []Run{runWith(`{}`, `{"messages":[{"content":"date 2026-12-01"}]}`), runWith(`{}`, `{"messages":[{"content":"date 2026-12-02"}]}`)},
			want: []Variance{{Where: "request", At: "call 1 (POST /chat/completions)", Path: "$.messages[0].content", Values: []string{`"date 2026-12-01"`, `"date 2026-12-02"`},
				Suggest: Setting{"scrub", `{ pattern: '("content":\s*"date 2026-12-)\d+(")', replace: '${1}{{content}}${2}' }`}}},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := append(stdoutVariance(c.runs), requestVariance(c.runs, c.ignore)...)
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("variance (-want +got):\n%s", diff)
			}
		})
	}
}

// TestScrubSettles: every suggested scrub rule matches each value seen
// and makes them equal, and leaves a line without the key alone.
func TestScrubSettles(t *testing.T) {
	for _, vals := range [][]any{
		{"a81f00c2", "0b9e41d7"},
		{"run-a81f", "run-ac00", "run-0000"},
		{"Today's date is 2026-12-01.", "Today's date is 2027-01-31."},
		{`quote " and \ back`, `quote " and / back`},
		{"x", ""},
		{strings.Repeat("p", 40) + "1" + strings.Repeat("s", 40), strings.Repeat("p", 40) + "22" + strings.Repeat("s", 40)},
	} {
		d := diff{segs: []any{"field"}, vals: vals}
		s := scrubFor(d)
		if s.Key != "scrub" {
			t.Errorf("%q: no scrub rule", vals)
			continue
		}
		m := regexp.MustCompile(`^\{ pattern: '(.*)', replace: '(.*)' \}$`).FindStringSubmatch(s.Item)
		re := regexp.MustCompile(strings.ReplaceAll(m[1], "''", "'"))
		var first string
		for i, v := range vals {
			got := re.ReplaceAllString(`{"other":1,"field":`+encoded(v)+`}`, strings.ReplaceAll(m[2], "''", "'"))
			if i == 0 {
				first = got
			} else if got != first {
				t.Errorf("%q: %s leaves %s and %s", vals, s.Item, first, got)
			}
		}
		if re.MatchString(`{"other":"a81f00c2"}`) && !strings.Contains(m[1], "field") {
			t.Errorf("%q: %s is not anchored to its key", vals, s.Item)
		}
	}
}

func TestExtraCalls(t *testing.T) {
	r := runWith("", `{}`)
	r.Calls = append(r.Calls,
		Call{At: 5500 * time.Microsecond, Path: "/chat/completions", Body: []byte(`{"messages":[{"role":"system","content":"Make a title."},{"role":"user","content":"Say hello."}]}`)},
		Call{At: 9 * time.Millisecond, Path: "/v1/messages", Body: []byte(`{"system":[{"type":"text","text":"Suggest"}],"messages":[{"role":"user","content":[{"type":"text","text":"next?"}]}]}`)},
	)
	want := []Extra{
		{Run: 1, Position: 2, Path: "/chat/completions", Summary: "system: Make a title. · user: Say hello.", When: "after step 3 (prompt) began", WithTurn: true},
		{Run: 1, Position: 3, Path: "/v1/messages", Summary: "system: Suggest · user: next?", When: "after step 3 (prompt) began"},
	}
	if diff := cmp.Diff(want, extraCalls([]Run{r})); diff != "" {
		t.Errorf("extra calls (-want +got):\n%s", diff)
	}
}

// initTook is r with its initialize step taking d.
func initTook(r Run, d time.Duration) Run {
	r.Steps = append([]Step(nil), r.Steps...)
	r.Steps[0].End = d
	return r
}

func TestLifecycle(t *testing.T) {
	exits := func(how string, eof, term time.Duration) Run {
		r := runWith("", `{}`)
		r.Shutdown = Shutdown{How: how, EOF: eof, Term: term}
		return r
	}
	type tc struct {
		name    string
		in      Input
		suggest Setting
		problem string
	}
	for _, c := range []tc{
		{name: "exits on EOF", in: Input{Runs: []Run{exits(proc.ExitedOnEOF.String(), 10*time.Millisecond, 0)}, Others: []Run{exits(proc.Terminated.String(), 0, 2*time.Millisecond)}}},
		{name: "slow on EOF, quick on SIGTERM", in: Input{Runs: []Run{exits(proc.ExitedOnEOF.String(), 1500*time.Millisecond, 0)}, Others: []Run{exits(proc.Terminated.String(), 0, 2*time.Millisecond)}},
			suggest: Setting{"agent.shutdown", "term"}},
		{name: "slow on EOF under load: slow beside a quick initialize only", in: Input{Runs: []Run{initTook(exits(proc.ExitedOnEOF.String(), 900*time.Millisecond, 0), 400*time.Millisecond), exits(proc.ExitedOnEOF.String(), 1500*time.Millisecond, 0)},
			Others: []Run{exits(proc.Terminated.String(), 0, 2*time.Millisecond)}}},
		{name: "slow on EOF in one run of three", in: Input{Runs: []Run{exits(proc.ExitedOnEOF.String(), 1500*time.Millisecond, 0), exits(proc.ExitedOnEOF.String(), 1500*time.Millisecond, 0), exits(proc.ExitedOnEOF.String(), 67*time.Millisecond, 0)},
			Others: []Run{exits(proc.Terminated.String(), 0, 2*time.Millisecond)}}},
		{name: "slow on both", in: Input{Runs: []Run{exits(proc.ExitedOnEOF.String(), 1500*time.Millisecond, 0)}, Others: []Run{exits(proc.Terminated.String(), 0, 1400*time.Millisecond)}}},
		{name: "ignores EOF", in: Input{Runs: []Run{exits(proc.Terminated.String(), 2*time.Second, 5*time.Millisecond)}, Others: []Run{exits(proc.Terminated.String(), 0, 5*time.Millisecond)}},
			suggest: Setting{"agent.shutdown", "term"}},
		{name: "term already", in: Input{Term: true, Runs: []Run{exits(proc.Terminated.String(), 0, 5*time.Millisecond)}, Others: []Run{exits(proc.Terminated.String(), 2*time.Second, 5*time.Millisecond)}}},
		{name: "ignores SIGTERM", in: Input{Term: true, Runs: []Run{exits("killed with SIGKILL after ignoring SIGTERM", 0, 2*time.Second)}},
			problem: "it ignores SIGTERM: the harness kills it with SIGKILL"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := lifecycle(c.in)
			if diff := cmp.Diff(c.suggest, l.Suggest); diff != "" {
				t.Errorf("suggestion (-want +got):\n%s", diff)
			}
			if l.Problem != c.problem {
				t.Errorf("problem: got %q, want %q", l.Problem, c.problem)
			}
		})
	}
}

func TestFiles(t *testing.T) {
	a, b := runWith("", "{}"), runWith("", "{}")
	a.Files = []File{{Path: ".cfg", Size: 3}, {Path: ".cache/x/1", Size: 10}, {Path: ".cache/x/2", Size: 5}}
	b.Files = []File{{Path: ".cfg", Size: 4}, {Path: ".cache/x/3", Size: 1}}
	want := []File{{Path: ".cache/x/", Size: 16, Files: 3}, {Path: ".cfg", Size: 4}}
	if diff := cmp.Diff(want, files([]Run{a, b})); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
}

func ExampleReport_WriteText() {
	run := func(trace string) Run {
		r := runWith(`{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}`+"\n", `{"model":"m","trace":"`+trace+`"}`)
		r.Files = []File{{Path: ".agent/state.json", Size: 17}}
		return r
	}
	rep := Analyze(Input{
		Runs:    []Run{run("0a1b"), run("ffe2"), run("9c00")},
		Others:  []Run{{Shutdown: Shutdown{How: proc.Terminated.String(), Term: 3 * time.Millisecond}}},
		Lookups: []Count{{"localhost", 2}, {"telemetry.example", 6}},
	})
	rep.WriteText(os.Stdout)
	// Output:
	// what varies (1, in 3 runs):
	//   request call 1 (POST /chat/completions) $.trace
	//     run 1: "0a1b"
	//     run 2: "ffe2"
	//     run 3: "9c00"
	//     scrub: { pattern: '("trace":\s*")[0-9a-f]+(")', replace: '${1}{{trace}}${2}' }
	// model calls beyond the script: none
	// network beyond the model endpoint (all refused):
	//   lookup telemetry.example (6×)
	//   one that no setting stops: acknowledge it in acpsnap.yml, probe: { expectHosts: [HOST, …] }
	// lifecycle: initialize 1 ms, session/new 1 ms (medians)
	//   after stdin EOF: exits in 10 ms, the median of 3 run(s)
	//   after SIGTERM: exits in 3 ms, the median of 1 run(s)
	//   its process group emptied within 0 ms of its exit
	// files written in HOME, outside the cwd (candidates for home/ seeding):
	//   .agent/state.json (17 bytes)
	// paste into acpsnap.yml (merge with what is there):
	//   scrub:
	//     - { pattern: '("trace":\s*")[0-9a-f]+(")', replace: '${1}{{trace}}${2}' }
	// not clean: 1 value(s) vary, 1 host(s) or address(es) tried
}

// TestRequestChanges: what differs between a recorded request and a
// replay's, with the setting that settles each part.
func TestRequestChanges(t *testing.T) {
	got := RequestChanges([]byte(`{"a":1,"metadata":{"trace_id":"1796428785211701696"}}`), []byte(`{"a":1,"metadata":{"trace_id":"1796428785243244603"}}`))
	want := []Variance{{Where: "request", Path: "$.metadata.trace_id", Values: []string{`"1796428785211701696"`, `"1796428785243244603"`},
		Suggest: Setting{"scrub", `{ pattern: '("trace_id":\s*")\d+(")', replace: '${1}{{trace_id}}${2}' }`}}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("RequestChanges (-want +got):\n%s", diff)
	}
	for _, c := range []struct {
		part string
		vals []string
		want Setting
	}{
		{"header:x-request-id", []string{`"a"`, `"b"`}, Setting{"model.ignore", `"header:x-request-id"`}},
		{"/metadata/trace_id", []string{`"17"`, `"42"`}, Setting{"scrub", `{ pattern: '("trace_id":\s*")\d+(")', replace: '${1}{{trace_id}}${2}' }`}},
		{"/n", []string{`17`, `42`}, Setting{"scrub", `{ pattern: '("n":\s*)-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?', replace: '${1}0' }`}},
		{"/m", []string{`[1]`, `[1,2]`}, Setting{"model.ignore", "/m"}},
		{"/x", []string{`"a [-b-] c"`, `not json`}, Setting{}},
	} {
		if got := SettleRequest(c.part, c.vals); got != c.want {
			t.Errorf("SettleRequest(%q, %q) = %+v, want %+v", c.part, c.vals, got, c.want)
		}
	}
}

// TestNetwork: loopback names are the model endpoint's own; the expected
// hosts' lookups and connects (by name, case and final dot aside, or by
// the connect's address) are set apart and do not make the report
// unclean; an expected host never tried is listed.
func TestNetwork(t *testing.T) {
	type tcase struct {
		name   string
		expect []string
		want   Network
		clean  bool
	}
	lookups := []Count{{"localhost", 2}, {"raw.githubusercontent.com", 4}}
	connects := []Count{{"tcp 192.0.2.1:443", 3}, {"udp 198.51.100.7:53", 1}}
	for _, tc := range []tcase{
		{name: "none expected", want: Network{Lookups: lookups[1:], Connects: connects, ExpectedLookups: []Count{}, ExpectedConnects: []Count{}, Unseen: []string{}}},
		{name: "a name and an address", expect: []string{"Raw.GitHubUserContent.com.", "192.0.2.1"},
			want: Network{Lookups: []Count{}, Connects: connects[1:], ExpectedLookups: lookups[1:], ExpectedConnects: connects[:1], Unseen: []string{}}},
		{name: "everything, and one never tried", expect: []string{"raw.githubusercontent.com", "192.0.2.1", "198.51.100.7", "gone.example"}, clean: true,
			want: Network{Lookups: []Count{}, Connects: []Count{}, ExpectedLookups: lookups[1:], ExpectedConnects: connects, Unseen: []string{"gone.example"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := runWith(`{"id":1}`, `{"a":1}`)
			rep := Analyze(Input{Runs: []Run{run, run}, Lookups: lookups, Connects: connects, ExpectHosts: tc.expect})
			if diff := cmp.Diff(tc.want, rep.Network); diff != "" {
				t.Errorf("network (-want +got):\n%s", diff)
			}
			if rep.Clean != tc.clean {
				t.Errorf("clean = %v, want %v", rep.Clean, tc.clean)
			}
		})
	}
}

// TestStoppedRunsNotCompared: a run that stopped at a failed step is
// reported by its error and left out of the comparison.
func TestStoppedRunsNotCompared(t *testing.T) {
	stopped := runWith("", `{}`)
	stopped.Steps = stopped.Steps[:2]
	stopped.Steps[1].Failed = true
	stopped.Err = "step 2 (newSession): timed out"
	rep := Analyze(Input{Runs: []Run{runWith(`{"id":1}`, `{"a":1}`), stopped, runWith(`{"id":1}`, `{"a":1}`)}})
	if rep.Compared != 2 || len(rep.Varies) != 0 || rep.Clean {
		t.Errorf("compared %d runs, %d variances, clean %v; want 2, 0, false", rep.Compared, len(rep.Varies), rep.Clean)
	}
	if diff := cmp.Diff([]string{"step 2 (newSession): timed out"}, rep.Errors); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestDates: today's date and the time now, in a request or on stdout,
// are found in one run, each with a scrub that settles it; a date far
// from now (a fixed one, seeded) is not.
func TestDates(t *testing.T) {
	now := time.Date(2026, 12, 4, 23, 41, 5, 0, time.UTC)
	r := runWith(`{"jsonrpc":"2.0","method":"session/update","params":{"update":{"sessionUpdate":"agent_message_chunk","content":{"text":"It is December 4, 2026."}}}}`+"\n",
		`{"system":"You are a helper.\nToday's date is 2026-12-04.","metadata":{"sent":1796428785,"first":"2026-01-01T00:00:00Z"}}`)
	r.Scenario = "text-turn"
	rep := Analyze(Input{Runs: []Run{r, r}, Now: now})
	var got []string
	for _, v := range rep.Dates {
		got = append(got, v.Where+" "+v.Path+" "+v.Values[0]+" "+v.Suggest.Item)
	}
	want := []string{
		`request $.metadata.sent 1796428785 { pattern: '("sent":\s*"?)1\d{9}', replace: '${1}{{time}}' }`,
		`request $.system "You are a helper.\nToday's date is 2026-12-04." { pattern: '(Today''s date is )\d{4}-\d{2}-\d{2}', replace: '${1}{{date}}' }`,
		`stdout $.params.update.content.text "It is December 4, 2026." { pattern: '("It is )(?:January|February|March|April|May|June|July|August|September|October|November|December) \d{1,2}, \d{4}', replace: '${1}{{date}}' }`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("dates (-want +got):\n%s", diff)
	}
	if rep.Clean {
		t.Error("a report with dates is clean")
	}
	// Each rule settles the text it came from and the same text on
	// another day.
	for _, v := range rep.Dates {
		m := regexp.MustCompile(`^\{ pattern: '(.*)', replace: '(.*)' \}$`).FindStringSubmatch(v.Suggest.Item)
		if m == nil {
			t.Errorf("%s: no scrub rule", v.Path)
			continue
		}
		re := regexp.MustCompile(strings.ReplaceAll(m[1], "''", "'"))
		if !re.MatchString(string(r.Requests[0].Body) + string(r.Stdout)) {
			t.Errorf("%s matches nothing of the run", v.Suggest.Item)
		}
	}
	if got := Analyze(Input{Runs: []Run{r, r}}).Dates; len(got) != 0 {
		t.Errorf("without Now: %d dates, want none", len(got))
	}
}

// TestRetries: a call that repeats the one before right after its error
// status, and is answered, is a retried error; every attempt patched (the
// retry fails too) is not.
func TestRetries(t *testing.T) {
	q := func(status int, body string) Request {
		return Request{Method: "POST", Path: "/v1/messages", Body: []byte(body), Status: status}
	}
	got := Retries([]Request{q(200, `{"a":1}`), q(429, `{"a":2}`), q(200, `{"a":2}`), q(500, `{"a":3}`), q(500, `{"a":3}`), q(200, `{"a":4}`)})
	if diff := cmp.Diff([]Retry{{Call: 3, Status: 429}}, got); diff != "" {
		t.Errorf("Retries (-want +got):\n%s", diff)
	}
	r := runWith("", `{}`)
	r.Requests = []Request{q(429, `{"a":2}`), q(200, `{"a":2}`)}
	var b strings.Builder
	rep := Analyze(Input{Runs: []Run{r, r}})
	rep.WriteText(&b)
	for _, want := range []string{"error calls the agent retried (2):\n  run 1: call 2 repeats call 1 right after its status 429\n", "patch every attempt", "retry-after", "not clean: 2 retried error call(s)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
}

// TestScenarios: the runs of several scenarios are compared scenario by
// scenario, each finding naming its scenario, in one report.
func TestScenarios(t *testing.T) {
	a1, a2 := runWith(`{"id":1}`, `{"trace":"8f3a"}`), runWith(`{"id":1}`, `{"trace":"c01d"}`)
	b := runWith(`{"id":2}`, `{"x":1}`)
	a1.Scenario, a2.Scenario, b.Scenario = "a", "a", "b"
	rep := Analyze(Input{Runs: []Run{a1, a2, b, b}})
	if diff := cmp.Diff([]string{"a", "b"}, rep.Scenarios); diff != "" {
		t.Errorf("scenarios (-want +got):\n%s", diff)
	}
	if len(rep.Varies) != 1 || rep.Varies[0].Scenario != "a" || rep.Varies[0].At != "call 1 (POST /chat/completions)" {
		t.Errorf("varies = %+v, want a's request only, named", rep.Varies)
	}
}

// TestAllRunsFailed: a report of runs that all stopped says so, with no
// timings made of nothing.
func TestAllRunsFailed(t *testing.T) {
	stopped := runWith("", `{}`)
	stopped.Steps = stopped.Steps[:1]
	stopped.Steps[0].Failed = true
	stopped.Err = "step 1 (initialize): agent exited"
	rep := Analyze(Input{Runs: []Run{stopped, stopped}})
	var b strings.Builder
	rep.WriteText(&b)
	for _, want := range []string{"what varies: not compared: none of the 2 runs ran its whole script", "lifecycle: not measured: no run ran its whole script",
		"runs that failed:\n  step 1 (initialize): agent exited", "not clean: no run ran its whole script, 1 run error(s)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "0 ms") || rep.Clean {
		t.Errorf("clean %v, or a timing of nothing:\n%s", rep.Clean, b.String())
	}
}

// TestSlowExitText: an exit over SlowExit that was not slow in every run
// (or not beside its initialize) is shown as such, with no advice.
func TestSlowExitText(t *testing.T) {
	slow := runWith("", `{}`)
	slow.Shutdown = Shutdown{How: proc.ExitedOnEOF.String(), EOF: 900 * time.Millisecond}
	quick := runWith("", `{}`)
	quick.Shutdown = Shutdown{How: proc.ExitedOnEOF.String(), EOF: 60 * time.Millisecond}
	rep := Analyze(Input{Runs: []Run{slow, slow, quick}, Others: []Run{{Shutdown: Shutdown{How: proc.Terminated.String(), Term: time.Millisecond}}}})
	var b strings.Builder
	rep.WriteText(&b)
	want := "  after stdin EOF: exits in 900 ms (not slow in every run, or not beside its initialize: the machine was busy), the median of 3 run(s)\n"
	if !strings.Contains(b.String(), want) || rep.Lifecycle.Suggest.Key != "" {
		t.Errorf("the report lacks %q or suggests %v:\n%s", want, rep.Lifecycle.Suggest, b.String())
	}
}
