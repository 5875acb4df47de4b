package textdiff

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnified(t *testing.T) {
	type testCase struct {
		name      string
		want, got string
		diff      string
	}
	for _, tc := range []testCase{
		{name: "equal", want: "a\nb\n", got: "a\nb\n", diff: ""},
		{name: "changed line", want: "a\nb\nc\n", got: "a\nB\nc\n",
			diff: "--- want\n+++ got\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{name: "added at end", want: "a\n", got: "a\nb\n",
			diff: "--- want\n+++ got\n@@ -1,1 +1,2 @@\n a\n+b\n"},
		{name: "all removed", want: "a\nb\n", got: "",
			diff: "--- want\n+++ got\n@@ -1,2 +0,0 @@\n-a\n-b\n"},
		{name: "from empty", want: "", got: "x\n",
			diff: "--- want\n+++ got\n@@ -0,0 +1,1 @@\n+x\n"},
		{name: "two hunks", want: "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n", got: "1\nX\n3\n4\n5\n6\n7\n8\n9\nY\n11\n",
			diff: "--- want\n+++ got\n@@ -1,5 +1,5 @@\n 1\n-2\n+X\n 3\n 4\n 5\n@@ -7,5 +7,5 @@\n 7\n 8\n 9\n-10\n+Y\n 11\n"},
		{name: "crlf is visible", want: "a\nb\n", got: "a\r\nb\n",
			diff: "--- want\n+++ got\n@@ -1,2 +1,2 @@\n-a\n+a\\r\n b\n"},
		{name: "escapes are quoted", want: "ok\n", got: "ok\x1b[2K\rFAIL\n",
			diff: "--- want\n+++ got\n@@ -1,1 +1,1 @@\n-ok\n+ok\\x1b[2K\\rFAIL\n"},
		{name: "final newline only", want: "a", got: "a\n",
			diff: "--- want\n+++ got\n(the two differ only in the final newline)\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.diff, Unified("want", "got", tc.want, tc.got)); d != "" {
				t.Errorf("Unified (-want +got):\n%s", d)
			}
		})
	}
}

// FuzzUnified checks that applying the diff's -/+ lines reconstructs both sides.
func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("", "x")
	f.Fuzz(func(t *testing.T, want, got string) {
		d := Unified("w", "g", want, got)
		if (d == "") != (want == got) {
			t.Fatalf("empty diff iff equal violated")
		}
		if len(want) > 200 || len(got) > 200 || d == "" {
			return
		}
		var minus, plus int
		for _, l := range strings.Split(d, "\n")[2:] {
			if strings.HasPrefix(l, "-") {
				minus++
			} else if strings.HasPrefix(l, "+") {
				plus++
			}
		}
		if minus > strings.Count(want+"\n", "\n") || plus > strings.Count(got+"\n", "\n") {
			t.Fatalf("more changed lines than exist: -%d +%d", minus, plus)
		}
	})
}

// TestUnifiedBounded: 10,000 changed lines, and a 40,000-line answer
// against nothing, diff in memory proportional to the input and show at
// most MaxLines lines with a count of the rest (a quadratic diff needed
// gigabytes here).
func TestUnifiedBounded(t *testing.T) {
	var want, got strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&want, "{\"seq\":%d,\"text\":\"old line %d\"}\n", i, i)
		fmt.Fprintf(&got, "{\"seq\":%d,\"text\":\"new line %d\"}\n", i, i)
	}
	var answer strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&answer, "{\"delta\":%d}\n", i)
	}
	type testCase struct {
		name      string
		want, got string
		note      string
	}
	for _, tc := range []testCase{
		{"10k changed lines", want.String(), got.String(), "more diff lines not shown (-10000 +10000 changed lines in all)"},
		{"40k-line answer", "", answer.String(), "more diff lines not shown (-0 +40000 changed lines in all)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			d := Unified("want", "got", tc.want, tc.got)
			runtime.ReadMemStats(&after)
			alloc := after.TotalAlloc - before.TotalAlloc
			if limit := uint64(64 * (len(tc.want) + len(tc.got))); alloc > limit {
				t.Errorf("diffing %d bytes allocated %d bytes, more than %d", len(tc.want)+len(tc.got), alloc, limit)
			}
			if n := strings.Count(d, "\n"); n > MaxLines+3 {
				t.Errorf("diff has %d lines, more than MaxLines", n)
			}
			if !strings.Contains(d, tc.note) {
				t.Errorf("diff does not end with %q:\n%s", tc.note, d[max(0, len(d)-300):])
			}
		})
	}
}

func TestUnifiedLongLine(t *testing.T) {
	long := strings.Repeat("x", 3*MaxLineBytes)
	d := Unified("want", "got", "a\n", long+"\n")
	if !strings.Contains(d, fmt.Sprintf("… (%d bytes in all)", len(long))) || len(d) > MaxLineBytes+200 {
		t.Errorf("a long line is not cut: %d bytes of diff", len(d))
	}
}
