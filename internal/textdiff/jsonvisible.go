package textdiff

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// quoteJSON writes s as the inside of a JSON string literal: quotes and
// backslashes escaped, "\n" "\r" "\t" in their short forms, other control
// characters, invisible format characters (zero-width space, BOM, bidi
// marks), unusual spaces (no-break space) and invalid UTF-8 as escapes, so
// that nothing the eye cannot see is left in the output.
func quoteJSON(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&sb, `\x%02x`, s[i])
		case r == '"' || r == '\\':
			sb.WriteByte('\\')
			sb.WriteRune(r)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r == '\t':
			sb.WriteString(`\t`)
		case invisible(r):
			fmt.Fprintf(&sb, `\u%04x`, r)
		default:
			sb.WriteRune(r)
		}
		i += size
	}
	return sb.String()
}

// visibleRaw shows a raw (non-JSON) line: control characters become their
// Unicode control pictures ("\t" is "␉", "\r" is "␍"), other invisible
// characters and invalid bytes become "⟨U+200B⟩" / "⟨0xff⟩". Backslashes are
// left alone, so JSON text that falls back to raw lines reads as written.
func visibleRaw(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&sb, "⟨0x%02x⟩", s[i])
		case r < 0x20:
			sb.WriteRune(0x2400 + r)
		case r == 0x7f:
			sb.WriteRune('␡')
		case invisible(r):
			fmt.Fprintf(&sb, "⟨U+%04X⟩", r)
		default:
			sb.WriteRune(r)
		}
		i += size
	}
	return sb.String()
}

// invisible reports characters that print as nothing, or as a plain space
// while not being one.
func invisible(r rune) bool {
	switch {
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r < 0xa0: // C1 controls
		return true
	case r == ' ':
		return false
	case unicode.Is(unicode.Cf, r), unicode.IsSpace(r), unicode.Is(unicode.Zs, r):
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return false
}

// groupInt formats n with thousands separators: 4112 is "4,112".
func groupInt(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + groupInt(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
