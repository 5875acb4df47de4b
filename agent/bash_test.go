package agent

import (
	"fmt"
	"os"
	"strings"
	"testing"

	acp "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
)

// runBashLocally runs command as the only tool call of a turn, with bash
// local, and returns the logged tool result.
func runBashLocally(t *testing.T, command string) (toolResultData, *rig) {
	t.Helper()
	sc := newScript(use(call("c1", "bash", map[string]any{"command": command})), say("ok"))
	r := newRig(t, sc.provider(), nil, nil)
	sid := r.session(acp.ClientCapabilities{})
	return runOneTool(t, r, sid, sc), r
}

// TestBashEnvironment: no DEEPSEEK_* or ACPSNAP_* variable of the agent
// reaches a command; the rest of the environment does, and PWD is the cwd.
func TestBashEnvironment(t *testing.T) {
	type testCase struct {
		name, value string
		visible     bool
	}
	cases := []testCase{
		{"DEEPSEEK_API_KEY", "sk-secret", false},
		{"DEEPSEEK_BASE_URL", "http://127.0.0.1:1/v1", false},
		{"DEEPSEEK_MODEL", "deepseek-chat", false},
		{"ACPSNAP_MODE", "record", false},
		{"ACPSNAP_FIXTURE", "/home/someone/fixtures/x.json", false},
		{"ACPSNAP_SESSIONS_DIR", "/home/someone/sessions", false},
		{"Deepseek_Api_Key", "sk-other", false},
		{"ACPSNAPSHOT_KEEP", "1", true},
		{"MY_DEEPSEEK_NOTE", "1", true},
		{"LANG_FOR_TOOLS", "C", true},
	}
	want, env := map[string]string{}, ""
	for _, tc := range cases {
		t.Setenv(tc.name, tc.value)
		if tc.visible {
			want[tc.name] = tc.value
		}
		env += tc.name + " "
	}
	cmd := fmt.Sprintf(`for v in %s; do if [ -n "${!v+x}" ]; then echo "$v=${!v}"; fi; done; env | grep -ci -e '^deepseek_' -e '^acpsnap_' || true; echo "PWD=$PWD"`, env)
	res, r := runBashLocally(t, cmd)
	got, count := map[string]string{}, ""
	for _, line := range strings.Split(strings.TrimSuffix(res.Content, "\n"), "\n") {
		name, value, ok := strings.Cut(line, "=")
		if !ok {
			count = line
			continue
		}
		got[name] = value
	}
	want["PWD"] = r.cwd
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("variables the command sees (-want +got):\n%s", diff)
	}
	if count != "0" {
		t.Errorf("env lists %s DEEPSEEK_*/ACPSNAP_* variables, want 0; output:\n%s", count, res.Content)
	}
}

// TestBashOutputFileInvisible: the command's output file is unlinked
// before the command starts, so $TMPDIR looks empty to it and stays empty.
func TestBashOutputFileInvisible(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	res, _ := runBashLocally(t, `ls -A "$TMPDIR"`)
	if diff := cmp.Diff(toolResultData{Turn: 1, Step: 1, CallID: "c1", Content: "(no output)"}, res); diff != "" {
		t.Errorf("tool/result (-want +got):\n%s", diff)
	}
	left, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 0 {
		t.Errorf("%d files left in TMPDIR, want none", len(left))
	}
}

// TestBashTruncation: a long output is cut at maxToolOutput and the note
// counts every byte left out, however far past the cap the output went.
func TestBashTruncation(t *testing.T) {
	type testCase struct {
		name  string
		size  int
		wantN int // bytes left out; 0: not truncated
	}
	for _, tc := range []testCase{
		{"under the cap", 1000, 0},
		{"at the cap", maxToolOutput, 0},
		{"just over", maxToolOutput + 1, 1},
		{"far over", 400_000, 400_000 - maxToolOutput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, _ := runBashLocally(t, fmt.Sprintf(`head -c %d /dev/zero | tr '\0' a`, tc.size))
			want := strings.Repeat("a", min(tc.size, maxToolOutput))
			if tc.wantN > 0 {
				want += fmt.Sprintf("\n[truncated: %d more bytes]", tc.wantN)
			}
			if res.Content != want || res.Error {
				t.Errorf("result: %d bytes ending %q (error %v), want %d bytes ending %q", len(res.Content), tail(res.Content), res.Error, len(want), tail(want))
			}
		})
	}
}

func tail(s string) string { return s[max(0, len(s)-40):] }

func TestTruncate(t *testing.T) {
	long := strings.Repeat("a", maxToolOutput)
	type testCase struct {
		name  string
		in    string
		total int // 0: len(in)
		want  string
	}
	for _, tc := range []testCase{
		{name: "short", in: "héllo", want: "héllo"},
		{name: "exactly the cap", in: long, want: long},
		{name: "one byte over", in: long + "b", want: long + "\n[truncated: 1 more bytes]"},
		{name: "two-byte rune across the cap", in: long[1:] + "é" + "z", want: long[1:] + "\n[truncated: 3 more bytes]"},
		{name: "four-byte rune across the cap", in: long[2:] + "😀", want: long[2:] + "\n[truncated: 4 more bytes]"},
		{name: "rune ending at the cap", in: long[2:] + "é" + "z", want: long[2:] + "é" + "\n[truncated: 1 more bytes]"},
		{name: "prefix of a longer text", in: long + "bbbb", total: 400_000, want: long + fmt.Sprintf("\n[truncated: %d more bytes]", 400_000-maxToolOutput)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			total := tc.total
			if total == 0 {
				total = len(tc.in)
			}
			got := truncateOf(tc.in, total)
			if got != tc.want {
				t.Errorf("truncateOf: %d bytes ending %q, want %d bytes ending %q", len(got), tail(got), len(tc.want), tail(tc.want))
			}
		})
	}
}

func TestToolEnv(t *testing.T) {
	in := []string{"PATH=/bin", "DEEPSEEK_API_KEY=k", "ACPSNAP_MODE=record", "deepseek_x=1", "HOME=/h", "ACPSNAP=1", "XDEEPSEEK_Y=1"}
	want := []string{"PATH=/bin", "HOME=/h", "ACPSNAP=1", "XDEEPSEEK_Y=1"}
	if diff := cmp.Diff(want, toolEnv(in)); diff != "" {
		t.Errorf("toolEnv (-want +got):\n%s", diff)
	}
}
