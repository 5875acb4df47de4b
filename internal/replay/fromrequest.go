package replay

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// PlaceholderOpener is the text that starts a request placeholder.
const PlaceholderOpener = "{{fromRequest:"

// PlaceholderExcerpt is how many bytes of the request an error shows.
const PlaceholderExcerpt = 120

// Placeholder is one placeholder in a text: its regex (as written, escapes kept)
// and its byte span [Start, End) in the text, braces included.
type Placeholder struct {
	Regex      string
	Start, End int
}

// ErrUnclosedPlaceholder is wrapped by errors about an opener without a closer.
var ErrUnclosedPlaceholder = errors.New(`no closing "}}"`)

// FindPlaceholders returns the tokens of text in order, or an error for an opener whose
// closer is missing. It does not compile the regexes.
func FindPlaceholders(text string) ([]Placeholder, error) {
	var out []Placeholder
	for off := 0; ; {
		i := strings.Index(text[off:], PlaceholderOpener)
		if i < 0 {
			return out, nil
		}
		start := off + i
		body := start + len(PlaceholderOpener)
		re, end, ok := scanRegex(text[body:])
		if !ok {
			return out, fmt.Errorf("fromrequest: offset %d: %s%s: %w", start, PlaceholderOpener, clip(text[body:]), ErrUnclosedPlaceholder)
		}
		out = append(out, Placeholder{Regex: re, Start: start, End: body + end})
		off = body + end
	}
}

// scanRegex reads a regex up to its closer (see the package documentation)
// and returns it, the offset just past the closer, and whether one was found.
func scanRegex(s string) (re string, end int, ok bool) {
	for i := 0; i < len(s); {
		switch s[i] {
		case '\\':
			i += 2
		case '}':
			j := i
			for j < len(s) && s[j] == '}' {
				j++
			}
			if j-i >= 2 {
				return s[:j-2], j, true
			}
			i = j
		default:
			i++
		}
	}
	return "", 0, false
}

// ExpandPlaceholders replaces every token in text with the first capture group of its
// regex matched against request. Text without tokens is returned unchanged.
func ExpandPlaceholders(text string, request []byte) (string, error) {
	toks, err := FindPlaceholders(text)
	if err != nil || len(toks) == 0 {
		return text, err
	}
	var sb strings.Builder
	last := 0
	for _, t := range toks {
		v, err := MatchPlaceholder(t.Regex, request)
		if err != nil {
			return "", fmt.Errorf("fromrequest: offset %d: %w", t.Start, err)
		}
		sb.WriteString(text[last:t.Start])
		sb.WriteString(v)
		last = t.End
	}
	sb.WriteString(text[last:])
	return sb.String(), nil
}

// MatchPlaceholder applies one placeholder regex to request and returns its first
// capture group. Its errors name the regex and quote an excerpt of the request.
func MatchPlaceholder(regex string, request []byte) (string, error) {
	re, err := regexp.Compile(regex)
	if err != nil {
		return "", fmt.Errorf("%s%s}}: %w", PlaceholderOpener, regex, err)
	}
	if re.NumSubexp() < 1 {
		return "", fmt.Errorf("%s%s}}: the regex has no capture group", PlaceholderOpener, regex)
	}
	m := re.FindSubmatchIndex(request)
	switch {
	case m == nil:
		return "", fmt.Errorf("%s%s}}: no match in the request %s", PlaceholderOpener, regex, excerpt(request))
	case m[2] < 0:
		return "", fmt.Errorf("%s%s}}: group 1 took no part in the match in the request %s", PlaceholderOpener, regex, excerpt(request))
	}
	return string(request[m[2]:m[3]]), nil
}

// excerpt shows the start of a request, Go-quoted so that control
// characters are visible, with its total size.
func excerpt(request []byte) string {
	return fmt.Sprintf("(%d bytes: %s)", len(request), clip(string(request)))
}

// clip quotes the first PlaceholderExcerpt bytes of s (cut at a rune boundary), with an
// ellipsis when s is longer.
func clip(s string) string {
	if len(s) <= PlaceholderExcerpt {
		return strconv.Quote(s)
	}
	n := PlaceholderExcerpt
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strconv.Quote(s[:n]) + "…"
}
