package cli

import (
	"fmt"
	"strings"
)

// splitCommand splits a command line the way a POSIX shell splits words:
// single quotes keep everything; inside double quotes a backslash escapes
// only $ ` " \ and newline; outside quotes it escapes any character, and
// backslash-newline joins lines. No expansion of any kind is done.
func splitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	escaped, dqEscape := false, false
	for _, r := range s {
		switch {
		case escaped:
			if r != '\n' { // backslash-newline joins lines
				cur.WriteRune(r)
				inWord = true
			}
			escaped = false
		case quote == '\'':
			if r == '\'' {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\\' && quote == 0:
			escaped = true
		case quote == '"':
			switch {
			case dqEscape:
				if !strings.ContainsRune("$`\"\\\n", r) {
					cur.WriteRune('\\')
				}
				if r != '\n' {
					cur.WriteRune(r)
				}
				dqEscape = false
			case r == '\\':
				dqEscape = true
			case r == '"':
				quote = 0
			default:
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 || escaped {
		return nil, fmt.Errorf("unterminated quote or escape in %q", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("empty command")
	}
	return words, nil
}
