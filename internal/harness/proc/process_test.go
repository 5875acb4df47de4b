package proc

import (
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestAgent starts real processes: what they print is recorded line by
// line, a line that breaks the protocol fails the run, and Shutdown says
// how each ended.
func TestAgent(t *testing.T) {
	type testCase struct {
		name   string
		script string
		lines  []string
		fail   string // "": no failure
		ending Ending
	}
	deep := strings.Repeat("[", 1001) + strings.Repeat("]", 1001)
	for _, tc := range []testCase{
		{"exits on EOF", `echo '{"jsonrpc":"2.0","method":"x"}'; cat >/dev/null`,
			[]string{`{"jsonrpc":"2.0","method":"x"}`}, "", ExitedOnEOF},
		{"not JSON", `echo hello; cat >/dev/null`, []string{"hello"}, `agent stdout line 1 is not JSON (stdout is protocol only): "hello"`, ExitedOnEOF},
		{"duplicate key", `echo '{"id":1,"id":2}'; cat >/dev/null`, []string{`{"id":1,"id":2}`}, "duplicate", ExitedOnEOF},
		{"nested too deep", "echo '" + deep + "'; cat >/dev/null", []string{deep}, "nested deeper than 1000 (stdout is protocol only)", ExitedOnEOF},
		{"needs SIGTERM", `trap 'exit 0' TERM; while :; do sleep 0.01; done`, nil, "", Terminated},
		{"ignores SIGTERM", `trap '' TERM; while :; do sleep 0.01; done`, nil, "", Killed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // the two SIGTERM cases wait out a grace each
			var mu sync.Mutex
			var fails []string
			a, err := Start([]string{"sh", "-c", tc.script}, t.TempDir(), []string{"PATH=/usr/bin:/bin"}, 200*time.Millisecond, false, func(err error) {
				mu.Lock()
				defer mu.Unlock()
				fails = append(fails, err.Error())
			})
			if err != nil {
				t.Fatal(err)
			}
			go io.Copy(io.Discard, a.SDK())
			if len(tc.lines) > 0 {
				for a.LineCount() < len(tc.lines) {
					<-a.Wrote()
				}
			}
			how, leftovers := a.Shutdown(200 * time.Millisecond)
			var got []string
			for _, l := range a.StdoutLines() {
				got = append(got, string(l))
			}
			if diff := cmp.Diff(tc.lines, got); diff != "" {
				t.Errorf("stdout lines (-want +got):\n%s", diff)
			}
			if how != tc.ending || leftovers {
				t.Errorf("Shutdown = %s, leftovers %v; want %s, none", how, leftovers, tc.ending)
			}
			mu.Lock()
			defer mu.Unlock()
			switch {
			case tc.fail == "" && len(fails) > 0:
				t.Errorf("failed: %q", fails)
			case tc.fail != "" && (len(fails) != 1 || !strings.Contains(fails[0], tc.fail)):
				t.Errorf("failures %q, want one containing %q", fails, tc.fail)
			}
		})
	}
}
