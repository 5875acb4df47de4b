package console

import (
	"fmt"
	"strings"
	"unicode"
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
	prev := rune(-1) // the rune before, as written raw; -1: an escape or the start
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		next, nsize := utf8.DecodeRuneInString(s[i+size:])
		if next == utf8.RuneError && nsize <= 1 {
			next = -1 // the end, or a byte that is escaped
		}
		kept := r
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(sb, `\x%02x`, s[i])
			kept = -1
		case r == '\n' && keepNL, r == '\t':
			sb.WriteRune(r)
		case r == '\n':
			sb.WriteString(`\n`)
		case r == '\r':
			sb.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(sb, `\x%02x`, r)
		case unsafeRune(r) && !emojiPart(prev, r, next):
			fmt.Fprintf(sb, `\u%04x`, r)
			kept = -1
		default:
			sb.WriteString(s[i : i+size])
		}
		prev = kept
		i += size
	}
}

// Presentation selectors and the joiner of emoji sequences.
const (
	textStyle  = 0xfe0e
	emojiStyle = 0xfe0f
	zwj        = 0x200d
)

// emojiPart reports an invisible rune that is part of an emoji between
// prev (kept raw; -1: none) and next: a joiner between two symbols, or a
// single presentation selector after a visible character. Anything else
// invisible is escaped, so no run of them can hide text.
func emojiPart(prev, r, next rune) bool {
	switch r {
	case zwj:
		return (symbol(prev) || prev == emojiStyle) && symbol(next)
	case textStyle, emojiStyle:
		return prev > ' ' && prev != 0x7f && !unsafeRune(prev)
	}
	return false
}

func symbol(r rune) bool { return r > 0x7f && unicode.In(r, unicode.So, unicode.Sk) }

// unsafeRune reports the non-ASCII runes that change how a terminal shows
// text or show as nothing: C1 controls, the line and paragraph separators,
// format characters (Cf: bidirectional embeddings, overrides, isolates and
// marks, zero-width spaces and joiners, the byte order mark, tag
// characters U+E0000–E007F), variation selectors and the other default
// ignorables (Hangul fillers, U+034F, …).
func unsafeRune(r rune) bool {
	switch {
	case r < 0x80:
		return false
	case r <= 0x9f, r == 0x2028, r == 0x2029:
		return true
	}
	return unicode.In(r, unicode.Cf, unicode.Variation_Selector, unicode.Other_Default_Ignorable_Code_Point)
}
