package tool

import (
	"errors"
	"fmt"
	"strings"
)

// Include selects the tools a cassette records and replays: exact names and
// patterns where '*' matches any run of characters (every other character
// is literal). Unselected tools run as usual.
type Include struct {
	patterns []string
	exact    map[string]bool
	globs    []string
}

// NewInclude checks and compiles patterns: the list must be non-empty, and
// no pattern blank or given twice.
func NewInclude(patterns []string) (*Include, error) {
	if len(patterns) == 0 {
		return nil, errors.New("include: empty: name at least one tool or pattern")
	}
	inc := &Include{patterns: append([]string(nil), patterns...), exact: map[string]bool{}}
	seen := map[string]bool{}
	for i, p := range patterns {
		switch {
		case strings.TrimSpace(p) == "":
			return nil, fmt.Errorf("include[%d]: blank pattern", i)
		case seen[p]:
			return nil, fmt.Errorf("include[%d]: duplicate pattern %q", i, p)
		}
		seen[p] = true
		if strings.Contains(p, "*") {
			inc.globs = append(inc.globs, p)
		} else {
			inc.exact[p] = true
		}
	}
	return inc, nil
}

// Patterns returns the patterns as given.
func (inc *Include) Patterns() []string { return append([]string(nil), inc.patterns...) }

// Match reports whether the tool name is selected.
func (inc *Include) Match(name string) bool {
	if inc.exact[name] {
		return true
	}
	for _, g := range inc.globs {
		if glob(g, name) {
			return true
		}
	}
	return false
}

// glob matches name against pattern, '*' matching any run (the classic
// backtrack-to-last-star scan: linear in practice, no recursion).
func glob(pattern, name string) bool {
	p, n := 0, 0
	star, mark := -1, 0
	for n < len(name) {
		switch {
		case p < len(pattern) && pattern[p] == '*':
			star, mark = p, n
			p++
		case p < len(pattern) && pattern[p] == name[n]:
			p++
			n++
		case star >= 0:
			p, mark = star+1, mark+1
			n = mark
		default:
			return false
		}
	}
	for p < len(pattern) && pattern[p] == '*' {
		p++
	}
	return p == len(pattern)
}
