package textdiff

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/rogpeppe/go-internal/diff"

	"github.com/acpsnap/acpsnap/internal/console"
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
	return unified(wantName, gotName, []byte(want), []byte(got))
}

// MaxDiffed bounds the bytes of each side's changed region that are
// diffed: the lines the two sides share at their start and end are set
// aside first (but for Context lines of each), so a change in a large file
// costs what the change costs; a changed region larger than this is diffed
// up to it, and the diff says so.
const MaxDiffed = 4 << 20

// unified is Unified over bytes, which it never copies whole.
func unified(wantName, gotName string, want, got []byte) string {
	if bytes.Equal(want, got) {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", console.Line(wantName), console.Line(gotName))
	w, g, skipped := changed(want, got)
	cut := len(w) > MaxDiffed || len(g) > MaxDiffed
	w, g = terminated(upTo(w, MaxDiffed)), terminated(upTo(g, MaxDiffed))
	if bytes.Equal(w, g) {
		sb.WriteString("(the two differ only in the final newline)\n")
		return sb.String()
	}
	d := diff.Diff("want", w, "got", g)
	if i := bytes.IndexByte(d, '@'); i >= 0 {
		writeCapped(&sb, d[i:], skipped) // after go-internal's own three header lines
	}
	if cut {
		fmt.Fprintf(&sb, "… the changed region is larger than %d MiB on a side: only its first %d MiB were diffed\n", MaxDiffed>>20, MaxDiffed>>20)
	}
	return sb.String()
}

// changed returns the region of want and got from Context lines before
// their first differing line to Context lines after their last one, and
// the number of lines before it.
func changed(want, got []byte) (w, g []byte, skipped int) {
	n := 0
	for n < len(want) && n < len(got) && want[n] == got[n] {
		n++
	}
	start := bytes.LastIndexByte(want[:n], '\n') + 1 // the first differing line
	m := 0
	for m < len(want)-start && m < len(got)-start && want[len(want)-1-m] == got[len(got)-1-m] {
		m++
	}
	// The shared end starts at a line start on both sides.
	for m > 0 && !(lineStart(want, len(want)-m) && lineStart(got, len(got)-m)) {
		m--
	}
	from := start
	for k := 0; k < Context && from > 0; k++ {
		from = bytes.LastIndexByte(want[:from-1], '\n') + 1
	}
	skipped = bytes.Count(want[:from], []byte("\n"))
	tail := m
	for k := 0; k < Context && tail > 0; k++ {
		i := bytes.IndexByte(want[len(want)-tail:], '\n')
		if i < 0 {
			tail = 0
			break
		}
		tail -= i + 1
	}
	return want[from : len(want)-tail], got[from : len(got)-tail], skipped
}

// lineStart reports whether i starts a line of b.
func lineStart(b []byte, i int) bool { return i == 0 || b[i-1] == '\n' }

// upTo is b up to max bytes, cut after a line break when it is longer.
func upTo(b []byte, max int) []byte {
	if len(b) <= max {
		return b
	}
	if i := bytes.LastIndexByte(b[:max], '\n'); i >= 0 {
		return b[:i+1]
	}
	return b[:max]
}

// terminated returns b with a final "\n" (none for the empty text).
func terminated(b []byte) []byte {
	if len(b) == 0 || b[len(b)-1] == '\n' {
		return b
	}
	return append(b[:len(b):len(b)], '\n')
}

// writeCapped writes the diff lines of body, each made visible and cut at
// MaxLineBytes, at most MaxLines of them, then a count of the rest; the
// line numbers of its hunks are moved by skipped.
func writeCapped(sb *strings.Builder, body []byte, skipped int) {
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
		if skipped > 0 && bytes.HasPrefix(line, []byte("@@ ")) {
			line = moveHunk(line, skipped)
		}
		writeLine(sb, line)
	}
	if left > 0 {
		fmt.Fprintf(sb, "… %d more diff lines not shown (-%d +%d changed lines in all)\n", left, minus, plus)
	}
}

// moveHunk moves the line numbers of a hunk header "@@ -a,b +c,d @@" by n.
func moveHunk(line []byte, n int) []byte {
	var a, b, c, d int
	if _, err := fmt.Sscanf(string(line), "@@ -%d,%d +%d,%d @@", &a, &b, &c, &d); err != nil {
		return line
	}
	return fmt.Appendf(nil, "@@ -%d,%d +%d,%d @@", a+n, b, c+n, d)
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
	sb.WriteString(console.Line(string(text)))
	if cut > 0 {
		fmt.Fprintf(sb, "… (%d bytes in all)", cut)
	}
	sb.WriteString("\n")
}
