package textdiff

import (
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
		if minus > len(splitLines(want)) || plus > len(splitLines(got)) {
			t.Fatalf("more changed lines than exist: -%d +%d", minus, plus)
		}
	})
}
