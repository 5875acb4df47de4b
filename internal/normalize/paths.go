package normalize

import (
	"bytes"
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the path tokens: {{cwd}}, {{home}} and {{root}}, the
// spellings of each (and their spellings relative to "/", {{cwdRel}},
// {{homeRel}} and {{rootRel}}), and the scan that replaces them inside text.

// pathNames are the path tokens' names, in precedence order: a spelling
// registered for two of them belongs to the first.
var pathNames = [numPaths]string{"cwd", "home", "root"}

const (
	pathCwd = iota
	pathHome
	pathRoot
	numPaths
)

// AddPath registers path and its aliases (other spellings; see the Aliases
// function) as the path token {{name}}. name is "home" (the agent's HOME)
// or "root" (the run's private root that holds the cwd and the home); the
// cwd is the Cwd field. Any other name panics, as does a call after the
// Context's first use: both are programming errors. Calling it again for
// the same name adds spellings. The spellings follow the rules of the cwd
// (see the package documentation): only absolute paths other than "/"
// count, and all spellings of all path tokens compete longest first.
func (c *Context) AddPath(name, path string, aliases ...string) {
	i := slices.Index(pathNames[:], name)
	if i <= pathCwd {
		panic(fmt.Sprintf("normalize: AddPath: unknown path token %q (want home or root)", name))
	}
	if c.prepared {
		panic("normalize: AddPath after the Context's first use")
	}
	c.paths[i] = append(append(c.paths[i], path), aliases...)
}

// Aliases returns the other spellings of cwd that may appear in output: its
// real path (symbolic links resolved) and the "/private" variants macOS
// produces, deduplicated, without cwd itself. It serves any path, the home
// and the root too.
func Aliases(cwd string) []string {
	cwd = filepath.Clean(cwd)
	spellings := privateVariants(cwd)
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		spellings = append(spellings, real)
		spellings = append(spellings, privateVariants(real)...)
	}
	var out []string
	for _, s := range spellings {
		if s != cwd && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// privateVariants returns p with "/private" added or removed.
func privateVariants(p string) []string {
	if !filepath.IsAbs(p) || p == "/" {
		return nil
	}
	if rest, ok := strings.CutPrefix(p, "/private/"); ok {
		return []string{"/" + rest}
	}
	return []string{"/private" + p}
}

// relSuffix ends the name of the token that stands for a path token's
// spelling relative to "/" ({{cwdRel}}: "tmp/acpsnap-…/workspace").
const relSuffix = "Rel"

// needle is one spelling of a path token.
type needle struct {
	path  []byte
	token []byte
	rel   bool // relative to "/": it must start where a path can start
}

// needleGroup holds the spellings that begin with the same shortest
// spelling, its base: one search for the base finds them all. Its needles
// are sorted longest first, so the base is the last.
type needleGroup []needle

// preparePaths builds the needle groups from the cwd and the added paths.
// A spelling seen before (the cwd's first) is skipped.
func (c *Context) preparePaths() {
	var all []needle
	for i, name := range pathNames {
		spellings := c.paths[i]
		if i == pathCwd {
			spellings = append([]string{c.Cwd}, c.Aliases...)
		}
		for _, s := range spellings {
			s = filepath.Clean(s)
			if s == "/" || !filepath.IsAbs(s) {
				continue
			}
			all = addNeedle(all, needle{path: []byte(s), token: []byte("{{" + name + "}}")})
			if rel := s[1:]; strings.Contains(rel, "/") { // one component alone ("tmp") is a word
				all = addNeedle(all, needle{path: []byte(rel), token: []byte("{{" + name + relSuffix + "}}"), rel: true})
			}
		}
	}
	slices.SortFunc(all, func(a, b needle) int {
		return cmp.Or(cmp.Compare(len(a.path), len(b.path)), bytes.Compare(a.path, b.path))
	})
	c.groups = nil
	for _, n := range all { // shortest first: a base comes before its group
		g := slices.IndexFunc(c.groups, func(g needleGroup) bool { return bytes.HasPrefix(n.path, g[0].path) })
		if g < 0 {
			c.groups = append(c.groups, needleGroup{n})
		} else {
			c.groups[g] = append(c.groups[g], n)
		}
	}
	for _, g := range c.groups {
		slices.Reverse(g)
	}
}

// addNeedle appends n unless a spelling seen before (of a token earlier in
// precedence) is the same path.
func addNeedle(all []needle, n needle) []needle {
	if slices.ContainsFunc(all, func(o needle) bool { return bytes.Equal(o.path, n.path) }) {
		return all
	}
	return append(all, n)
}

// scrubPaths replaces every spelling of a path token that ends at a path
// boundary by its token. At one position the longest spelling wins;
// scanning goes left to right and resumes after each replacement. Two
// groups never match at one position (their bases would share a prefix).
func (c *Context) scrubPaths(s []byte) []byte {
	if len(c.groups) == 0 || bytes.IndexByte(s, '/') < 0 {
		return s
	}
	var smallAt, smallWhich [8]int
	at, which := smallAt[:0], smallWhich[:0]
	for _, g := range c.groups {
		a, w := g.next(s, 0)
		at, which = append(at, a), append(which, w)
	}
	var out []byte
	done := 0 // s[:done] is already in out
	for {
		k := -1
		for i, a := range at {
			if a >= 0 && (k < 0 || a < at[k]) {
				k = i
			}
		}
		if k < 0 {
			break
		}
		nd := c.groups[k][which[k]]
		out = append(append(out, s[done:at[k]]...), nd.token...)
		done = at[k] + len(nd.path)
		for i, a := range at {
			if a >= 0 && a < done {
				at[i], which[i] = c.groups[i].next(s, done)
			}
		}
	}
	if out == nil {
		return s
	}
	return append(out, s[done:]...)
}

// next returns the first index ≥ from where a spelling of g occurs followed
// by a path boundary (and, relative to "/", preceded by a path start), and
// which spelling (the longest there), or -1. A group's spellings are all
// absolute or all relative: they share their first byte.
func (g needleGroup) next(s []byte, from int) (at, which int) {
	base := g[len(g)-1].path
	for from <= len(s)-len(base) {
		j := bytes.Index(s[from:], base)
		if j < 0 {
			return -1, 0
		}
		at := from + j
		if g[0].rel && !pathStart(s, at) {
			from = at + 1
			continue
		}
		for k, nd := range g {
			if bytes.HasPrefix(s[at:], nd.path) && pathBoundary(s, at+len(nd.path)) {
				return at, k
			}
		}
		from = at + 1
	}
	return -1, 0
}

// pathBoundary reports whether a path ending at s[:i] cannot go on: s ends
// there, or s[i] cannot continue a file name. Letters, digits, '_', '-',
// '{' and a '.' followed by a letter, digit or '{' continue a name (so
// "cwd2", "cwd-x", "cwd.bak" are other paths, and "cwd." ends a sentence).
// '{' counts because a token may stand where a name went on: treating it as
// continuation keeps normalization idempotent.
func pathBoundary(s []byte, i int) bool {
	if i >= len(s) {
		return true
	}
	if s[i] == '.' {
		return i+1 >= len(s) || !nameByte(s[i+1:])
	}
	return !nameByte(s[i:]) && s[i] != '-' && s[i] != '_'
}

// pathStart reports whether a relative path can start at s[i]: at the start
// of s, or after a character that neither continues a file name nor ends
// a directory ('/'), nor closes a token ('}'): "tmp/x" starts a path in
// "ls tmp/x" and "(tmp/x)", not in "/var/tmp/x", "mytmp/x" or "a.tmp/x".
func pathStart(s []byte, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRune(s[:i])
	switch r {
	case '/', '}', '.', '-', '_':
		return false
	}
	return !unicode.IsLetter(r) && !unicode.IsDigit(r)
}

// nameByte reports whether the rune at the start of s is a letter, a digit
// or '{'.
func nameByte(s []byte) bool {
	b := s[0]
	if b < utf8.RuneSelf {
		return b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= '0' && b <= '9' || b == '{'
	}
	r, _ := utf8.DecodeRune(s)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}
