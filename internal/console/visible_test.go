package console

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
		{"tag\U000e0041\U000e0042", `tag\ue0041\ue0042`, `tag\ue0041\ue0042`},
		{"zero\u200bwidth\u200c\u2060\u00ad", `zero\u200bwidth\u200c\u2060\u00ad`, `zero\u200bwidth\u200c\u2060\u00ad`},
		{"hangul\u3164filler", `hangul\u3164filler`, `hangul\u3164filler`},
		{"smuggled\ufe00\ufe01\U000e0100", `smuggled\ufe00\ufe01\ue0100`, `smuggled\ufe00\ufe01\ue0100`},
		{"a\u200db", `a\u200db`, `a\u200db`},
		{"warn \u26a0\ufe0f 👩\u200d💻 🏳\ufe0f\u200d🌈", "warn \u26a0\ufe0f 👩\u200d💻 🏳\ufe0f\u200d🌈", "warn \u26a0\ufe0f 👩\u200d💻 🏳\ufe0f\u200d🌈"},
		{"x\ufe0f\ufe0f", "x\ufe0f\\ufe0f", "x\ufe0f\\ufe0f"},
		{"👩\u200d\u200d💻", `👩\u200d\u200d💻`, `👩\u200d\u200d💻`},
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
	f.Add("👩\u200d💻\u26a0\ufe0f\U000e0041\u200b")
	f.Add("\x8f\u200d")
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Line(s), Text(s)} {
			rs := []rune(out)
			for i, r := range rs {
				prev, next := rune(-1), rune(-1)
				if i > 0 {
					prev = rs[i-1]
				}
				if i+1 < len(rs) {
					next = rs[i+1]
				}
				if r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || unsafeRune(r) && !emojiPart(prev, r, next) {
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
