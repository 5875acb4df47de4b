// Package textdiff renders line-based unified diffs for failure messages,
// in bounded time and memory whatever the inputs: the edit script is
// go-internal's anchored diff (github.com/rogpeppe/go-internal/diff,
// O(n log n) time, linear space; a plain Myers diff needs memory that grows
// with the square of the changes), and what is shown is capped.
//
//	fmt.Print(textdiff.Unified("want: a.jsonl", "got: live", want, got))
//	// --- want: a.jsonl
//	// +++ got: live
//	// @@ -1,3 +1,3 @@
//	//  a
//	// -b
//	// +b\r
//	//  c
//
// Lines are shown through internal/visible, so a "\r" (a CRLF fixture),
// an escape sequence or invalid UTF-8 is visible, never acted on by the
// terminal. At most MaxLines lines of diff are shown and each at most
// MaxLineBytes bytes; what was left out is counted in a last line,
// "… 9,412 more diff lines not shown (-5,000 +5,000 in all)".
//
// Within a changed line, [Words] is the word diff (the spans both sides
// share and the spans that changed, for a caller to mark as it likes) and
// [Changed] renders it as text: the changed words marked [-so-] and {+so+}
// with a few words of context, the long unchanged runs cut.
package textdiff

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/acpsnap/acpsnap/internal/visible"
)

// Context is the number of unchanged lines shown around each change.
const Context = 3

// MaxLines bounds the diff lines shown (hunk headers included).
const MaxLines = 400

// MaxLineBytes bounds the bytes shown of one line.
const MaxLineBytes = 64 << 10

// Unified returns a unified diff of want and got under "--- wantName" and
// "+++ gotName" headers, or "" when they are equal. Lines are split on
// "\n"; a missing final newline is not reported as a change of its own.
func Unified(wantName, gotName, want, got string) string {
	if want == got {
		return ""
	}
	w, g := terminated(want), terminated(got)
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", visible.Line(wantName), visible.Line(gotName))
	if bytes.Equal(w, g) {
		sb.WriteString("(the two differ only in the final newline)\n")
		return sb.String()
	}
	d := diff.Diff("want", w, "got", g)
	body := d[bytes.IndexByte(d, '@'):] // after go-internal's own three header lines
	writeCapped(&sb, body)
	return sb.String()
}

// terminated returns s with a final "\n" (none for the empty string).
func terminated(s string) []byte {
	if s == "" || strings.HasSuffix(s, "\n") {
		return []byte(s)
	}
	return []byte(s + "\n")
}

// writeCapped writes the diff lines of body, each made visible and cut at
// MaxLineBytes, at most MaxLines of them, then a count of the rest.
func writeCapped(sb *strings.Builder, body []byte) {
	shown, left, minus, plus := 0, 0, 0, 0
	for len(body) > 0 {
		line, rest, _ := bytes.Cut(body, []byte("\n"))
		body = rest
		if len(line) > 0 {
			switch line[0] {
			case '-':
				minus++
			case '+':
				plus++
			}
		}
		if shown >= MaxLines {
			left++
			continue
		}
		shown++
		writeLine(sb, line)
	}
	if left > 0 {
		fmt.Fprintf(sb, "… %d more diff lines not shown (-%d +%d changed lines in all)\n", left, minus, plus)
	}
}

func writeLine(sb *strings.Builder, line []byte) {
	if len(line) == 0 {
		sb.WriteString("\n")
		return
	}
	text, cut := line[1:], 0
	if len(text) > MaxLineBytes {
		text, cut = text[:MaxLineBytes], len(text)
	}
	sb.WriteByte(line[0])
	sb.WriteString(visible.Line(string(text)))
	if cut > 0 {
		fmt.Fprintf(sb, "… (%d bytes in all)", cut)
	}
	sb.WriteString("\n")
}
