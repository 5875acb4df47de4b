package visible

import (
	"strings"
	"testing"
)

func TestLine(t *testing.T) {
	type testCase struct{ in, line, text string }
	for _, tc := range []testCase{
		{"plain\ttab", "plain\ttab", "plain\ttab"},
		{"a\r\nb", `a\r\nb`, "a\\r\nb"},
		{"ok\x1b[2K\rFAIL", `ok\x1b[2K\rFAIL`, `ok\x1b[2K\rFAIL`},
		{"\x1b]52;c;aGk=\x07", `\x1b]52;c;aGk=\x07`, `\x1b]52;c;aGk=\x07`},
		{"\u009b2J", `\u009b2J`, `\u009b2J`},
		{"evil\u202eexe.txt", `evil\u202eexe.txt`, `evil\u202eexe.txt`},
		{"\ufeff{}", `\ufeff{}`, `\ufeff{}`},
		{"bad\xffbyte", `bad\xffbyte`, `bad\xffbyte`},
		{"héllo wörld", "héllo wörld", "héllo wörld"},
		{"del\x7f", `del\x7f`, `del\x7f`},
	} {
		if got := Line(tc.in); got != tc.line {
			t.Errorf("Line(%q) = %q, want %q", tc.in, got, tc.line)
		}
		if got := Text(tc.in); got != tc.text {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.text)
		}
	}
}

func FuzzLine(f *testing.F) {
	f.Add("ok\x1b[2K\r\n\u202e\xff")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Line(s), Text(s)} {
			for _, r := range out {
				if r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || unsafeRune(r) {
					t.Fatalf("%q survives in %q", r, out)
				}
			}
		}
		if Line(Line(s)) != Line(s) {
			t.Fatalf("Line not stable on its own output: %q", s)
		}
	})
}

func TestQuote(t *testing.T) {
	long := strings.Repeat("x", 201)
	for _, tc := range []struct{ in, want string }{
		{"{\"a\":1}", `"{\"a\":1}"`},
		{"\x1b[2J", `"\x1b[2J"`},
		{long[:200], `"` + long[:200] + `"`},
		{long, `"` + long[:200] + `"… (201 bytes)`},
	} {
		if got := Quote([]byte(tc.in)); got != tc.want {
			t.Errorf("Quote(%q) = %s, want %s", tc.in, got, tc.want)
		}
	}
}
