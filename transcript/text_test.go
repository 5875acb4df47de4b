package transcript

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ExampleWriteText() {
	t, err := Load("../snapshots/permission-approved")
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
