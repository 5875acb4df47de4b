package subagent

import (
	"fmt"
	"strings"
	"unicode"
)

// Escape makes cassette-derived text (labels, keys) safe for a terminal:
// control characters, format characters (bidi overrides, zero-width
// marks) and line or paragraph separators become \u escapes, and a
// backslash becomes two.
func Escape(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == unicode.ReplacementChar, unicode.IsControl(r), unicode.Is(unicode.Cf, r),
			unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
