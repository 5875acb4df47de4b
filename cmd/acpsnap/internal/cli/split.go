package cli

import (
	"errors"
	"fmt"

	"github.com/kballard/go-shellquote"
)

// splitCommand splits a command line the way a POSIX shell splits words
// (github.com/kballard/go-shellquote): single quotes keep everything;
// inside double quotes a backslash escapes only $ ` " \ and newline;
// outside quotes it escapes any character, and backslash-newline joins
// lines. No expansion of any kind is done.
func splitCommand(s string) ([]string, error) {
	words, err := shellquote.Split(s)
	if err != nil {
		return nil, fmt.Errorf("unterminated quote or escape in %q", s)
	}
	if len(words) == 0 {
		return nil, errors.New("empty command")
	}
	return words, nil
}
