package acpsnaptest_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"testing"

	"github.com/acpsnap/acpsnap/acpsnaptest"
)

// TestFailureLine: a scenario's failure and a guard violation are reported
// at the line of the user's test that called Run, not at a line of
// acpsnaptest's own source.
func TestFailureLine(t *testing.T) {
	dir := brokenExample(t)
	writeFile(t, filepath.Join(dir, "hello", "stray.txt"), "not a fixture\n")
	var line int
	passed, out := runTest("TestBroken", func(t *testing.T) {
		_, _, line, _ = runtime.Caller(0)
		acpsnaptest.Run(t, acpsnaptest.Params{Dir: dir}) // the line failures name: the one after Caller's
	})
	if passed {
		t.Fatalf("the broken corpus passed:\n%s", out)
	}
	at := regexp.MustCompile(`(?m)^\s+(\w+\.go):(\d+): `).FindAllStringSubmatch(out, -1)
	want := fmt.Sprintf("line_test.go:%d", line+1)
	if len(at) < 2 {
		t.Fatalf("fewer than two failures (the guards and hello) in:\n%s", out)
	}
	for _, m := range at {
		if got := m[1] + ":" + m[2]; got != want {
			t.Errorf("a failure is reported at %s, want %s (the call of Run):\n%s", got, want, out)
		}
	}
}
