package strictjson

import "unicode/utf8"

// This file reads the tokens of JSON that nothing has checked yet: the
// one-pass readers (normalize's tree, cassette's canonical lines) decide
// syntax with these instead of calling json.Valid first, and share one
// grammar and one set of messages.

// SyntaxError is a defect at byte offset Off of the input.
type SyntaxError struct {
	Off int
	Msg string
}

func (e *SyntaxError) Error() string { return e.Msg }

func syntaxError(off int, msg string) *SyntaxError { return &SyntaxError{Off: off, Msg: msg} }

// String is what ScanString learned about a string.
type String struct {
	End int // the offset after the closing quote
	// Decode: the string holds an escape or invalid UTF-8, so its value is
	// not the bytes between the quotes (AppendUnquote decodes it).
	Decode bool
	// Noncanonical is why the string is not what AppendQuote writes for
	// its value, "" when it is; NoncanonicalOff is where.
	Noncanonical    string
	NoncanonicalOff int
}

// Reasons a valid string is not canonical.
const (
	InvalidUTF8    = "invalid UTF-8 in a string"
	LineSeparator  = "unescaped U+2028 or U+2029 (not canonical)"
	EscapeNotCanon = "string escape not in canonical form"
)

// ScanString checks the JSON string whose opening quote is b[i] and
// returns what it found: where it ends, whether it needs decoding and
// whether it is canonical.
func ScanString(b []byte, i int) (String, *SyntaxError) {
	_, s, err := scanString(nil, b, i, false)
	return s, err
}

// PlainEnd returns the offset after the string whose opening quote is
// b[i] when it holds nothing but Plain bytes (its value is the bytes
// between the quotes, and it is canonical), else 0: the common case,
// small enough to inline before a reader calls AppendString.
func PlainEnd(b []byte, i int) int {
	j := i + 1
	for j < len(b) && Plain[b[j]] {
		j++
	}
	if j < len(b) && b[j] == '"' {
		return j + 1
	}
	return 0
}

// AppendString is ScanString that also appends the decoded value to dst
// when the string needs decoding (s.Decode), in the same pass.
func AppendString(dst, b []byte, i int) ([]byte, String, *SyntaxError) {
	return scanString(dst, b, i, true)
}

// scanString is a single loop over the string at b[i]; decode: append the
// value to dst when it is not the bytes between the quotes.
func scanString(dst, b []byte, i int, decode bool) ([]byte, String, *SyntaxError) {
	var s String
	start := i
	i++
	copied := i // b[copied:i] is not in dst yet
	for i < len(b) {
		for i < len(b) && Plain[b[i]] {
			i++ // the common case: printable ASCII other than '"' and '\\'
		}
		if i >= len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			if decode && s.Decode {
				dst = append(dst, b[copied:i]...)
			}
			s.End = i + 1
			return dst, s, nil
		case c == '\\':
			n, canon, err := scanEscape(b, i)
			if err != nil {
				return dst, s, err
			}
			s.Decode = true
			s.noncanonical(canon, i, EscapeNotCanon)
			if decode {
				dst, n = AppendEscape(append(dst, b[copied:i]...), b[i:]) // a surrogate pair is 12
				copied = i + n
			}
			i += n
		case c < 0x20:
			return dst, s, syntaxError(i, "control character in a string")
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 {
				s.Decode = true
				s.noncanonical(false, i, InvalidUTF8)
				if decode {
					dst = utf8.AppendRune(append(dst, b[copied:i]...), utf8.RuneError)
					copied = i + 1
				}
			}
			s.noncanonical(r != '\u2028' && r != '\u2029', i, LineSeparator)
			i += n
		}
	}
	return dst, s, syntaxError(start, "unterminated string")
}

func (s *String) noncanonical(canon bool, off int, why string) {
	if !canon && s.Noncanonical == "" {
		s.Noncanonical, s.NoncanonicalOff = why, off
	}
}

// scanEscape checks the escape at b[i] (a backslash): its length, and
// whether it is the one AppendQuote writes: \" \\ \b \f \n \r \t, \u00xx
// (lowercase) for the other control characters, \u2028 and \u2029.
func scanEscape(b []byte, i int) (n int, canon bool, err *SyntaxError) {
	if i+1 >= len(b) {
		return 0, false, syntaxError(i, "unterminated string escape")
	}
	e := b[i+1]
	if e != 'u' {
		if SimpleEscape(e) == 0 {
			return 0, false, syntaxError(i, "invalid string escape")
		}
		return 2, e != '/', nil
	}
	r, ok := Hex4(b, i+2)
	if !ok {
		if i+6 > len(b) {
			return 0, false, syntaxError(i, "unterminated string escape")
		}
		return 0, false, syntaxError(i, "invalid string escape")
	}
	switch {
	case r == '\u2028' || r == '\u2029':
		canon = true
	case r < 0x20:
		canon = SimpleEscape(shortEscapes[r]) == 0 && lowerHex(b[i+4:i+6])
	}
	return 6, canon, nil
}

// shortEscapes are the letters of the control characters AppendQuote
// writes with a one-letter escape.
var shortEscapes = [0x20]byte{'\b': 'b', '\f': 'f', '\n': 'n', '\r': 'r', '\t': 't'}

func lowerHex(h []byte) bool {
	for _, c := range h {
		if c >= 'A' && c <= 'F' {
			return false
		}
	}
	return true
}

// ScanNumber checks the JSON number at b[i] and returns the offset after
// it.
func ScanNumber(b []byte, i int) (int, *SyntaxError) {
	start := i
	if i < len(b) && b[i] == '-' {
		i++
	}
	n := digits(b, i)
	switch {
	case n == 0:
		return 0, syntaxError(start, "invalid number")
	case b[i] == '0' && n > 1:
		return 0, syntaxError(start, "number with a leading zero")
	}
	i += n
	if i < len(b) && b[i] == '.' {
		if n = digits(b, i+1); n == 0 {
			return 0, syntaxError(i, "invalid number fraction")
		}
		i += 1 + n
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if n = digits(b, i); n == 0 {
			return 0, syntaxError(i, "invalid number exponent")
		}
		i += n
	}
	return i, nil
}

func digits(b []byte, i int) int {
	n := i
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	return n - i
}

// ScanLiteral checks the literal true, false or null at b[i] and returns
// the offset after it.
func ScanLiteral(b []byte, i int) (int, *SyntaxError) {
	for _, lit := range [...]string{"true", "false", "null"} {
		if lit[0] == b[i] {
			if end := i + len(lit); end <= len(b) && string(b[i:end]) == lit {
				return end, nil
			}
			break
		}
	}
	return 0, syntaxError(i, "invalid literal")
}
