package report

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDiff(t *testing.T) {
	type testCase struct {
		name string
		diff string
		want []DiffLine
	}
	for _, tc := range []testCase{
		{name: "jsondiff's markers", diff: "~ $.text\n-   \"a [-cat-] sat\"\n+   \"a {+dog+} sat\"\n",
			want: []DiffLine{
				{Class: "path", Parts: []DiffPart{{Text: "~ $.text"}}},
				{Class: "del", Parts: []DiffPart{{Text: `-   "a `}, {Text: "cat", Mark: "del"}, {Text: ` sat"`}}},
				{Class: "ins", Parts: []DiffPart{{Text: `+   "a `}, {Text: "dog", Mark: "ins"}, {Text: ` sat"`}}}}},
		{name: "reverse video of a terminal diff", diff: "-x \x1b[31m\x1b[7mold\x1b[27m\x1b[0m y\n",
			want: []DiffLine{{Class: "del", Parts: []DiffPart{{Text: "-x "}, {Text: "old", Mark: "del"}, {Text: " y"}}}}},
		{name: "a short pair gets its changed words marked", diff: "@@ -1 +1 @@\n-say \"feed the dog.\"\n+say \"feed the cat.\"\n ctx\n",
			want: []DiffLine{
				{Class: "hunk", Parts: []DiffPart{{Text: "@@ -1 +1 @@"}}},
				{Class: "del", Parts: []DiffPart{{Text: "-"}, {Text: `say "feed the `}, {Text: "dog", Mark: "del"}, {Text: `."`}}},
				{Class: "ins", Parts: []DiffPart{{Text: "+"}, {Text: `say "feed the `}, {Text: "cat", Mark: "ins"}, {Text: `."`}}},
				{Parts: []DiffPart{{Text: " ctx"}}}}},
		{name: "an unpaired added line is whole", diff: "--- want: a\n+++ got: b\n+new\n",
			want: []DiffLine{
				{Class: "head", Parts: []DiffPart{{Text: "--- want: a"}}},
				{Class: "head", Parts: []DiffPart{{Text: "+++ got: b"}}},
				{Class: "ins", Parts: []DiffPart{{Text: "+new"}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := cmp.Diff(tc.want, ParseDiff(tc.diff)); d != "" {
				t.Errorf("ParseDiff (-want +got):\n%s", d)
			}
		})
	}
}

func TestValueFoldsAndCaps(t *testing.T) {
	type testCase struct {
		name      string
		in        string
		fold      bool
		cut, size string
	}
	for _, tc := range []testCase{
		{"short stays inline", "ok", false, "", "2 B"},
		{"long is folded under its size", strings.Repeat("a", foldBytes+1), true, "", "161 B"},
		{"many lines are folded", "1\n2\n3\n4\n5", true, "", "9 B"},
		{"the cap is kept, one byte more is cut", strings.Repeat("b", MaxValueBytes+1), true, "… 1 B more not shown", "16.4 KB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := value(tc.in)
			if v.Fold != tc.fold || v.Cut != tc.cut || v.Size != tc.size || len(v.Text) > MaxValueBytes {
				t.Errorf("value = fold %v cut %q size %q (%d bytes shown); want fold %v cut %q size %q", v.Fold, v.Cut, v.Size, len(v.Text), tc.fold, tc.cut, tc.size)
			}
		})
	}
	if v := value(strings.Repeat("b", MaxValueBytes)); v.Cut != "" {
		t.Errorf("a value of exactly MaxValueBytes is cut: %q", v.Cut)
	}
}
