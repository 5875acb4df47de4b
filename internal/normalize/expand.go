package normalize

import "strings"

// This file holds the path rules on their own, both ways: Paths scrubs the
// run's folders out of a text, Expander gives the path tokens today's
// values back.

// Expander returns the replacer that gives the path tokens the run's
// folders: {{cwd}}, {{home}} and {{root}} their absolute paths, {{cwdRel}},
// {{homeRel}} and {{rootRel}} the same paths relative to "/". It is the
// inverse of the path rules for the first spelling of each folder, and what
// serves a fixture's tokens to a live run. A folder given as "" leaves its
// tokens as they are.
func Expander(cwd, home, root string) *strings.Replacer {
	var pairs []string
	for i, p := range [numPaths]string{cwd, home, root} {
		if p == "" {
			continue
		}
		pairs = append(pairs, "{{"+pathNames[i]+"}}", p, "{{"+pathNames[i]+relSuffix+"}}", strings.TrimPrefix(p, "/"))
	}
	return strings.NewReplacer(pairs...)
}

// Paths applies the path rules of a Context alone (no ids, no times) to
// texts, and expands their tokens back. Unlike a Context it is safe for
// concurrent use.
type Paths struct {
	c      *Context
	expand *strings.Replacer
}

// NewPaths returns the path rules of c, whose cwd, aliases and AddPath
// spellings must be complete: c counts as used from now on.
func NewPaths(c *Context) *Paths {
	c.prepare()
	first := func(i int) string {
		if len(c.paths[i]) == 0 {
			return ""
		}
		return c.paths[i][0]
	}
	return &Paths{c: c, expand: Expander(c.Cwd, first(pathHome), first(pathRoot))}
}

// Scrub returns s with every spelling of the run's folders replaced by its
// token, at path boundaries, as Session and Stdout do inside every string.
func (p *Paths) Scrub(s string) string {
	out := p.c.scrubPaths([]byte(s))
	return string(out)
}

// Expand returns s with the path tokens given the folders' first spellings.
func (p *Paths) Expand(s string) string { return p.expand.Replace(s) }
