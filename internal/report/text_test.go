package report

import (
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ExampleWriteText() {
	t, err := Load("../../snapshots/permission-approved")
	if err != nil {
		panic(err)
	}
	WriteText(os.Stdout, t, TextConfig{Width: 72})
	// Output:
	// permission-approved (fixtures)
	// ── turn 1
	//   › Write done.txt saying ok.
	//   tool edit Write done.txt [completed]
	//     in:  {"content":"ok\n","path":"done.txt"}
	//     out: wrote 3 bytes to done.txt
	//   permission: Write done.txt [Allow once | Always allow | Reject |
	//               Always reject] → Allow once
	//   Wrote done.txt.
	//   stop: end_turn
	// 2 model call(s); acpsnap run -html FILE shows them
}

func TestWriteText(t *testing.T) {
	type testCase struct {
		name string
		t    *Transcript
		cfg  TextConfig
		want string
	}
	thought := &Transcript{Name: "x", Source: "fixtures", Turns: []Turn{{Prompt: "Hi", Items: []Item{{Kind: Thought, Text: "hmm"}, {Kind: Message, Text: "ok\x1b[2J"}}}}}
	long := &Transcript{Name: "x", Source: "run", Turns: []Turn{{Items: []Item{{Kind: ToolCall, Tool: &Tool{Kind: "read", Title: "Read", Status: "completed", Output: strings.Repeat("x", 100)}}}}}}
	for _, tc := range []testCase{
		{name: "plain: thoughts labelled, escapes made visible", t: thought,
			want: "x (fixtures)\n── turn 1\n  › Hi\n  thinking: hmm\n  ok\\x1b[2J\n"},
		{name: "colour: thoughts dimmed", t: thought, cfg: TextConfig{Color: true},
			want: sBold + "x (fixtures)" + sReset + "\n" + sBold + "── turn 1" + sReset + "\n  " + sBold + "› Hi" + sReset + "\n  " + sDim + "thinking: hmm" + sReset + "\n  ok\\x1b[2J\n"},
		{name: "a long output is cut to the width with its size", t: long, cfg: TextConfig{Width: 40},
			want: "x (run)\n── turn 1\n  tool read Read [completed]\n    out: xxxxxxxxxxxxxxxxxxxxxx… (100 B)\n"},
		{name: "no prompt", t: &Transcript{Name: "x", Source: "fixtures", Errors: []string{"newSession: refused"}},
			want: "x (fixtures)\nerror: newSession: refused\n  no prompt was sent\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var sb strings.Builder
			if err := WriteText(&sb, tc.t, tc.cfg); err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.want, sb.String()); d != "" {
				t.Errorf("WriteText (-want +got):\n%s", d)
			}
		})
	}
}

// TestWriteTextFixtureStrings: every string a fixture controls is made
// visible before it reaches the terminal, not only message text: a tool's
// kind and status, a mode id, a stop reason, a subagent's session, and the
// invisible characters (tag characters, zero-width ones) with them.
func TestWriteTextFixtureStrings(t *testing.T) {
	const osc52, up = "\x1b]52;c;ZXZpbA==\x07", "\x1b[1A\x1b[2K\rPASS"
	tr := &Transcript{Name: "x\x1b]0;title\x07", Source: "fixtures", Turns: []Turn{{
		Prompt: "hi\U000e0041\u200b",
		Items: []Item{
			{Kind: ToolCall, Tool: &Tool{Kind: "read" + osc52, Title: "T\u2060", Status: "done" + up}},
			{Kind: Mode, Text: "code" + up},
			{Kind: Subagent, Turn: &Turn{Session: "s" + osc52, Stop: "end" + osc52}},
		},
		Stop: "end_turn" + up,
	}}}
	for _, color := range []bool{false, true} {
		var sb strings.Builder
		if err := WriteText(&sb, tr, TextConfig{Color: color}); err != nil {
			t.Fatal(err)
		}
		out := sb.String()
		for _, bad := range []string{"\x1b]", "\x1b[1A", "\r", "\x07", "\U000e0041", "\u200b", "\u2060"} {
			if strings.Contains(out, bad) {
				t.Errorf("color %v: %q reaches the terminal:\n%s", color, bad, out)
			}
		}
		for _, shown := range []string{`read\x1b]52;c;ZXZpbA==\x07`, `done\x1b[1A\x1b[2K\rPASS`, `mode → code\x1b[1A`, `stop: end_turn\x1b[1A`, `hi\ue0041\u200b`, `T\u2060`} {
			if !strings.Contains(out, shown) {
				t.Errorf("color %v: output lacks %q:\n%s", color, shown, out)
			}
		}
	}
}

// TestWrapLinear: wrapping a paragraph without spaces costs in proportion
// to its length (it once converted the rest of the paragraph to runes for
// every line: 1 MiB took 10–28 s). Bytes allocated count the work.
func TestWrapLinear(t *testing.T) {
	alloc := func(n int) uint64 {
		s := strings.Repeat("é", n)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		lines := wrap(s, 100)
		runtime.ReadMemStats(&after)
		if len(lines) != (n+99)/100 || lines[0] != strings.Repeat("é", 100) {
			t.Fatalf("wrap(%d runes) = %d lines, first %q", n, len(lines), lines[0])
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(16<<10), alloc(64<<10)
	if ratio := float64(large) / float64(small); ratio > 6 {
		t.Errorf("4x the text allocated %.1fx the bytes (%d, then %d): not linear", ratio, small, large)
	}
}

func TestWrap(t *testing.T) {
	type testCase struct {
		in    string
		width int
		want  []string
	}
	for _, tc := range []testCase{
		{"", 10, []string{""}},
		{"short", 10, []string{"short"}},
		{"aaaa bbbb cccc", 10, []string{"aaaa bbbb", "cccc"}},
		{"aaaaaaaaaa bbb", 10, []string{"aaaaaaaaaa", "bbb"}},
		{"aaaaaaaaaaaa", 10, []string{"aaaaaaaaaa", "aa"}},
		{"ééééééééééé", 10, []string{"éééééééééé", "é"}},
		{" aaaaaaaaaaa", 10, []string{" aaaaaaaaa", "aa"}},
	} {
		if d := cmp.Diff(tc.want, wrap(tc.in, tc.width)); d != "" {
			t.Errorf("wrap(%q, %d) (-want +got):\n%s", tc.in, tc.width, d)
		}
	}
}

// BenchmarkWrap wraps one paragraph of 1 MiB without a space.
func BenchmarkWrap(b *testing.B) {
	s := strings.Repeat("x", 1<<20)
	for b.Loop() {
		wrap(s, 100)
	}
}
