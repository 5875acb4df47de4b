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

// TestFilesLarge: a change in a large file is diffed where it is, the
// lines the two sides share at their start and end set aside (a 128 MB
// fixture with one changed line once cost four copies of both sides), with
// the hunk's line numbers those of the file; a changed region larger than
// MaxDiffed is diffed up to it, and the diff says so.
func TestFilesLarge(t *testing.T) {
	line := strings.Repeat("x", 1000) + "\n"
	big := []byte(strings.Repeat(line, 32<<10)) // 32 MB
	changed := append([]byte(nil), big...)
	copy(changed[5000*len(line):], "yyyy")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	d := Files("a", "b", big, changed)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("diffing one changed line of two 32 MB files allocated %d bytes", alloc)
	}
	if !strings.Contains(d, "@@ -4998,7 +4998,7 @@\n") || !strings.Contains(d, "\n+yyyyxxx") {
		t.Errorf("diff:\n%.600s", d)
	}

	all := []byte(strings.ReplaceAll(string(big), "x", "z"))
	d = Files("a", "b", big, all)
	if !strings.Contains(d, fmt.Sprintf("only its first %d MiB were diffed", MaxDiffed>>20)) || strings.Count(d, "\n") > MaxLines+5 {
		t.Errorf("a diff of two 32 MB files that differ everywhere:\n%.300s", d[max(0, len(d)-300):])
	}
}

// FuzzUnifiedApplies: the diff of want and got, applied to want, gives got
// (the lines set aside are the same on both sides), its hunks numbered as
// in the whole texts.
func FuzzUnifiedApplies(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("a\nb\nc\nd\ne\nf\ng\nh\n", "a\nb\nc\nd\nX\nf\ng\nh\n")
	f.Add("x", "x\n")
	f.Fuzz(func(t *testing.T, want, got string) {
		if len(want) > 2000 || len(got) > 2000 || strings.IndexFunc(want+got, func(r rune) bool { return r != '\n' && (r < ' ' || r > '~') }) >= 0 {
			return // printable ASCII: a line shows as it is
		}
		d := Unified("want", "got", want, got)
		if (d == "") != (want == got) {
			t.Fatalf("Unified(%q, %q) = %q", want, got, d)
		}
		if d == "" || strings.Contains(d, "final newline") || strings.Contains(d, "more diff lines") {
			return
		}
		if applied := apply(t, want, d); applied != strings.TrimSuffix(got, "\n") {
			t.Fatalf("applying the diff of %q, %q gives %q:\n%s", want, got, applied, d)
		}
	})
}

// apply applies a unified diff to want and returns the result, joined by
// "\n" without a final one.
func apply(t *testing.T, want, d string) string {
	w := strings.Split(strings.TrimSuffix(want, "\n"), "\n")
	if want == "" {
		w = nil
	}
	var out []string
	at := 0 // lines of w consumed
	for _, l := range strings.Split(d, "\n")[2:] {
		switch {
		case strings.HasPrefix(l, "@@ "):
			var a, b, c, e int
			if _, err := fmt.Sscanf(l, "@@ -%d,%d +%d,%d @@", &a, &b, &c, &e); err != nil {
				t.Fatalf("hunk %q: %v", l, err)
			}
			start := a - 1
			if b == 0 {
				start = a
			}
			out = append(out, w[at:start]...)
			at = start
		case strings.HasPrefix(l, " "):
			out = append(out, w[at])
			at++
		case strings.HasPrefix(l, "-"):
			at++
		case strings.HasPrefix(l, "+"):
			out = append(out, l[1:])
		}
	}
	out = append(out, w[at:]...)
	return strings.Join(out, "\n")
}
