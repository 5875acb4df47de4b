package textdiff

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestWidth: on a terminal of Width columns the unchanged context lines
// fill a line of it and no more: a wide terminal shows more of them.
func TestWidth(t *testing.T) {
	long := `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{session:1}}","update":{"content":{"text":"` + strings.Repeat("word ", 60) + `"}}}}`
	want := long + "\n" + `{"id":3,"result":{"stopReason":"end_turn"}}` + "\n"
	got := long + "\n" + `{"id":3,"result":{"stopReason":"cancelled"}}` + "\n"
	longest := func(width int) int {
		d := JSONFiles("want", "got", []byte(want), []byte(got), Config{Width: width})
		n := 0
		for _, l := range strings.Split(d, "\n") {
			if strings.Contains(l, "bytes unchanged") && strings.Contains(l, "jsonrpc") {
				n = max(n, utf8.RuneCountInString(l))
			}
		}
		if n == 0 {
			t.Fatalf("width %d: no elided context line in:\n%s", width, d)
		}
		return n
	}
	for _, width := range []int{60, 100, 200} {
		if n := longest(width); n > width-2 || n < width-12 { // the printer indents it by 2
			t.Errorf("width %d: the context line is %d wide, want it to fill the line (%d-%d)", width, n, width-12, width-2)
		}
	}
	if a, b := longest(0), longest(200); a >= b {
		t.Errorf("without a width the context line is %d wide, on 200 columns %d: want more on the wide terminal", a, b)
	}
}
