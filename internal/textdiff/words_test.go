package textdiff

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWords(t *testing.T) {
	type testCase struct {
		name      string
		want, got string
		spans     []Span
	}
	for _, tc := range []testCase{
		{name: "equal", want: "a b", got: "a b", spans: []Span{{Equal: true, Want: "a b", Got: "a b"}}},
		{name: "both empty", want: "", got: "", spans: nil},
		{name: "one word", want: "keep the old word", got: "keep the new word", spans: []Span{
			{Equal: true, Want: "keep the ", Got: "keep the "},
			{Want: "old", Got: "new"},
			{Equal: true, Want: " word", Got: " word"},
		}},
		{name: "inserted", want: "a c", got: "a b c", spans: []Span{
			{Equal: true, Want: "a ", Got: "a "},
			{Got: "b "},
			{Equal: true, Want: "c", Got: "c"},
		}},
		{name: "punctuation apart", want: "end.", got: "end!", spans: []Span{
			{Equal: true, Want: "end", Got: "end"},
			{Want: ".", Got: "!"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Words(tc.want, tc.got)
			if d := cmp.Diff(tc.spans, got); d != "" {
				t.Errorf("Words (-want +got):\n%s", d)
			}
			var w, g strings.Builder
			for _, s := range got {
				w.WriteString(s.Want)
				g.WriteString(s.Got)
			}
			if w.String() != tc.want || g.String() != tc.got {
				t.Errorf("spans do not concatenate back: %q, %q", w.String(), g.String())
			}
		})
	}
}

func TestChanged(t *testing.T) {
	type testCase struct {
		name      string
		want, got string
		n         int
		w, g      string
	}
	long := strings.Repeat("lorem ipsum ", 20)
	for _, tc := range []testCase{
		{name: "equal", want: "same", got: "same"},
		{name: "short context kept whole", want: "a careful agent", got: "a careless agent", n: 2,
			w: "a [-careful-] agent", g: "a {+careless+} agent"},
		{name: "long prompt cut around the word", want: long + "be careful. " + long, got: long + "be careless. " + long, n: 2,
			w: "…233 bytes unchanged… ipsum be [-careful-]. lorem …234 bytes unchanged…",
			g: "…233 bytes unchanged… ipsum be {+careless+}. lorem …234 bytes unchanged…"},
		{name: "removed only", want: "tools: read, write, bash", got: "tools: read, bash", n: 3,
			w: "tools: read, [-write, -]bash", g: "tools: read, bash"},
		{name: "invisible made visible", want: "a\x1bb", got: "a\rb", n: 1, w: "a[-\\x1b-]b", g: "a{+\\r+}b"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, g := Changed(tc.want, tc.got, tc.n)
			if d := cmp.Diff([]string{tc.w, tc.g}, []string{w, g}); d != "" {
				t.Errorf("Changed (-want +got):\n%s", d)
			}
		})
	}
}

func ExampleChanged() {
	prompt := "You are a coding agent. Be careful with files and answer briefly, in the user's language. Never guess paths."
	w, g := Changed(prompt, strings.Replace(prompt, "careful", "careless", 1), 3)
	fmt.Println(w)
	fmt.Println(g)
	// Output:
	// You are a coding agent. Be [-careful-] with files and …58 bytes unchanged…
	// You are a coding agent. Be {+careless+} with files and …58 bytes unchanged…
}

func TestAlign(t *testing.T) {
	type testCase struct {
		name string
		a, b []string
		want []Pair
	}
	for _, tc := range []testCase{
		{name: "equal", a: []string{"x", "y"}, b: []string{"x", "y"}, want: nil},
		{name: "one removed", a: []string{"read", "write", "bash"}, b: []string{"read", "bash"}, want: []Pair{{1, -1}}},
		{name: "one added", a: []string{"a"}, b: []string{"a", "b"}, want: []Pair{{-1, 1}}},
		{name: "replaced in place", a: []string{"a", "b", "c"}, b: []string{"a", "B", "c"}, want: []Pair{{1, 1}}},
		{name: "two removed, one added: paired in order", a: []string{"a", "b", "c", "d"}, b: []string{"a", "X", "d"}, want: []Pair{{1, 1}, {2, -1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Align(len(tc.a), len(tc.b), func(i, j int) bool { return tc.a[i] == tc.b[j] })
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Align (-want +got):\n%s", d)
			}
		})
	}
}
