// Package visible makes text from an agent safe to print on a terminal:
// control characters (the escape sequences that move the cursor, clear the
// screen or set the clipboard among them), C1 controls, bidirectional
// overrides and invalid UTF-8 become visible Go-style escapes, so nothing an
// agent prints can rewrite or hide a line of acpsnap's own output, and a
// "\r" at the end of a line shows as \r instead of nothing.
//
//	visible.Line("ok\x1b[2K\rFAIL") == `ok\x1b[2K\rFAIL`
//
// Tabs are kept. Line escapes "\n" too; Text keeps it as the line break.
package visible

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Line returns s with every character that could change what a terminal
// shows replaced by its escape; "\t" is kept, "\n" is escaped.
func Line(s string) string { return escape(s, false) }

// Text is Line that keeps "\n" as the line break.
func Text(s string) string { return escape(s, true) }

// Quote shows at most the first 200 bytes of b, Go-quoted (so no control
// character reaches a terminal), and the length of a longer b: a line an
// agent wrote, in an error message.
func Quote(b []byte) string {
	if len(b) > 200 {
		return fmt.Sprintf("%q… (%d bytes)", b[:200], len(b))
	}
	return fmt.Sprintf("%q", b)
}

func escape(s string, keepNL bool) string {
	if clean(s, keepNL) {
		return s
	}
	var sb strings.Builder
	write(&sb, s, keepNL)
	return sb.String()
}

// clean reports whether s needs no escape at all (the common case costs
// one pass and no allocation).
func clean(s string, keepNL bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\t' && (c != '\n' || !keepNL) || c >= 0x7f {
			return false
		}
	}
	return true
}

func write(sb *strings.Builder, s string, keepNL bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(sb, `\x%02x`, s[i])
		case r == '\n' && keepNL, r == '\t':
			sb.WriteRune(r)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(sb, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(sb, `\u%04x`, r)
		default:
			sb.WriteString(s[i : i+size])
		}
		i += size
	}
}

// unsafeRune reports the non-ASCII runes that change how a terminal shows
// text: C1 controls, bidirectional embeddings, overrides and isolates, the
// line and paragraph separators, and the byte order mark.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0x2028 || r == 0x2029 || r == 0xfeff:
		return true
	}
	return false
}
