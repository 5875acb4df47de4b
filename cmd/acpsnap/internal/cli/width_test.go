package cli

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/creack/pty"
)

// TestDiffFillsTerminal: run's diffs on a terminal cut their context lines
// to fill its width ($COLUMNS, else the terminal's own), not a fixed 48
// bytes.
func TestDiffFillsTerminal(t *testing.T) {
	dir := copyScenarios(t, "text-turn")
	breakFixture(t, filepath.Join(dir, "text-turn", "stdout.expected.jsonl"), " there, nice", " there, NICE")
	type testCase struct {
		cols    uint16
		columns string
		want    int // the widest context line
	}
	for _, tc := range []testCase{{cols: 200, want: 200}, {cols: 90, want: 90}, {cols: 200, columns: "120", want: 120}} {
		out, _ := runOnSizedTerminal(t, tc.cols, map[string]string{"TERM": "xterm", "NO_COLOR": "1", "COLUMNS": tc.columns}, "run", "-dir", dir)
		widest := 0
		for _, l := range strings.Split(strings.ReplaceAll(out, "\r", ""), "\n") {
			if strings.Contains(l, "bytes unchanged…") && strings.HasPrefix(strings.TrimSpace(l), "{") {
				widest = max(widest, utf8.RuneCountInString(l))
			}
		}
		if widest > tc.want || widest < tc.want-12 {
			t.Errorf("%d columns, COLUMNS=%q: the widest context line is %d, want it to fill %d:\n%s", tc.cols, tc.columns, widest, tc.want, out)
		}
	}
}

// runOnSizedTerminal runs the command line with stdout a terminal of cols
// columns (0: as the terminal opens) and returns what it printed there and
// its exit code.
func runOnSizedTerminal(t *testing.T, cols uint16, vars map[string]string, args ...string) (string, int) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	if cols > 0 {
		if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 50, Cols: cols}); err != nil {
			t.Fatal(err)
		}
	}
	got := make(chan string)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, ptmx) // ends with EIO once tty is closed
		got <- b.String()
	}()
	e := &env{stdout: tty, stderr: &bytes.Buffer{}, getenv: func(k string) string { return vars[k] }, environ: os.Environ()}
	code := e.main(args)
	tty.Close()
	return <-got, code
}
