package normalize

import (
	"bytes"
	"path/filepath"
	"slices"
	"strings"
)

// This file holds the rule for the run's nonce: the part of the root's
// name that differs from run to run. A whole spelling of the cwd, the home
// or the root is a path token (paths.go); what is left of one when an
// agent cuts a path to a fixed width ("…81-k2m9q4xa/workspace/notes.txt",
// "/tmp/acpsnap-0004211-k2…") keeps its shape, and the nonce's letters
// and digits in it become 0.

// minCut is the shortest cut of a spelling the rule takes (a cut of the
// cwd or the home is longer: it ends in the folder's own name).
const minCut = 5

// cut is a spelling that holds the nonce, at index at.
type cut struct {
	path []byte
	at   int
	rel  bool // relative to "/"
}

// AddNonce registers nonce, the part of the run's root name that differs
// from run to run and has one length every run (harness.Result.Nonce),
// and folders that hold it besides the cwd, the home and the root (the
// agent's TMPDIR), which get no token. Wherever the nonce appears whole,
// and wherever a cut of a spelling of one of these folders leaves part of
// it, its ASCII letters and digits become 0, so output that shortens a
// path to a fixed width is the same every run: a tail
// ("…81-k2m9q4xa/workspace/notes.txt": a suffix of a spelling of at least
// 5 bytes, after the start or a byte that is not a letter or digit, and
// ending at a path boundary) and a head ("/tmp/acpsnap-0004211-k2…": a
// prefix that ends at a path boundary). A nonce shorter than 5 bytes
// panics, as does a call after the Context's first use: both are
// programming errors.
func (c *Context) AddNonce(nonce string, folders ...string) {
	if len(nonce) < minCut {
		panic("normalize: AddNonce: a nonce of fewer than 5 bytes would match text by chance")
	}
	if c.prepared {
		panic("normalize: AddNonce after the Context's first use")
	}
	c.nonce, c.nonceFolders = []byte(nonce), folders
}

// prepareCuts lists the spellings that hold the nonce, each also as it is
// once normalized, and what the scan looks for first.
func (c *Context) prepareCuts() {
	if c.nonce == nil {
		return
	}
	c.cuts = nil
	for i := range numPaths + 1 {
		spellings := c.nonceFolders
		if i < numPaths {
			spellings = c.paths[i]
		}
		if i == pathCwd {
			spellings = append([]string{c.Cwd}, c.Aliases...)
		}
		for _, s := range spellings {
			s = filepath.Clean(s)
			at := strings.Index(s, string(c.nonce))
			if at < 0 || !filepath.IsAbs(s) || slices.ContainsFunc(c.cuts, func(k cut) bool { return string(k.path) == s }) {
				continue
			}
			// and the same spelling with the nonce zeroed, so normalized
			// text keeps its long matches (see scrubNonce)
			canon := []byte(s)
			zeroAlnum(canon[at : at+len(c.nonce)])
			c.cuts = append(c.cuts, cut{path: []byte(s), at: at}, cut{path: []byte(s[1:]), at: at - 1, rel: true},
				cut{path: canon, at: at}, cut{path: canon[1:], at: at - 1, rel: true})
			key := s[strings.LastIndexByte(s[:at], '/')+1 : at]
			if !slices.Contains(c.headKeys, key) {
				c.headKeys = append(c.headKeys, key)
			}
		}
	}
	c.rootTail = c.nonce[len(c.nonce)-minCut:]
}

// mayCut reports what s may hold, by what each holds: the whole nonce or
// a tail of the root alone, the nonce's last minCut bytes; another tail,
// the nonce's last byte (or 0) before a '/'; a head, the name before the
// nonce in the root's spelling ("acpsnap-") and a '/'. Most strings hold
// none of them, and the scan costs them three searches.
func (c *Context) mayCut(s []byte) (whole, tail, head bool) {
	whole = bytes.Contains(s, c.rootTail)
	slash := bytes.IndexByte(s, '/')
	if slash < 0 {
		return whole, whole, false
	}
	last := c.nonce[len(c.nonce)-1]
	for i := slash; !tail; {
		tail = i > 0 && (s[i-1] == last || s[i-1] == '0')
		j := bytes.IndexByte(s[i+1:], '/')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	for _, k := range c.headKeys {
		head = head || bytes.Contains(s, []byte(k))
	}
	return whole, whole || tail, head
}

// span is a match of the nonce rule: the bytes s[from:to] it covers, of
// which s[zeroFrom:zeroTo] are the nonce's.
type span struct{ from, to, zeroFrom, zeroTo int }

// scrubNonce zeroes the nonce where it appears whole and in every cut of a
// spelling that holds it. Where matches overlap the longest wins, so a
// short tail ("n/tmp", the nonce's last byte and TMPDIR's name) never
// matches inside a longer cut that holds the whole nonce (a cut of
// "…/script-run/tmp/acpsnap-<nonce>/workspace"). It returns s when nothing
// matched.
func (c *Context) scrubNonce(s []byte) []byte {
	if c.nonce == nil {
		return s
	}
	whole, tail, head := c.mayCut(s)
	if !whole && !tail && !head {
		return s
	}
	var spans []span
	for i := 0; whole; {
		j := bytes.Index(s[i:], c.nonce)
		if j < 0 {
			break
		}
		at := i + j
		spans = append(spans, span{at, at + len(c.nonce), at, at + len(c.nonce)})
		i = at + len(c.nonce)
	}
	for _, k := range c.cuts {
		if tail && !k.rel {
			spans = k.tails(s, len(c.nonce), spans)
		}
		if head {
			spans = k.heads(s, len(c.nonce), spans)
		}
	}
	if spans == nil {
		return s
	}
	slices.SortStableFunc(spans, func(a, b span) int { return (b.to - b.from) - (a.to - a.from) })
	out := bytes.Clone(s)
	var taken []span
	for _, sp := range spans {
		if slices.ContainsFunc(taken, func(t span) bool { return sp.from < t.to && t.from < sp.to }) {
			continue
		}
		taken = append(taken, sp)
		zeroAlnum(out[sp.zeroFrom:sp.zeroTo])
	}
	return out
}

// zeroAlnum turns the ASCII letters and digits of b into 0.
func zeroAlnum(b []byte) {
	for i, x := range b {
		if isAlnum(x) {
			b[i] = '0'
		}
	}
}

// tails adds the cuts that keep the end of k's spelling: the anchor (the
// nonce's last byte and what follows it, at least minCut bytes) followed
// by a path boundary, extended back while s agrees with the spelling, to
// the start of s or a byte that is not a letter or digit.
func (k cut) tails(s []byte, n int, spans []span) []span {
	end := k.at + n // the nonce is k.path[k.at:end]
	a := min(end-1, len(k.path)-minCut)
	anchor := k.path[a:]
	for i := 0; ; {
		j := bytes.Index(s[i:], anchor)
		if j < 0 {
			return spans
		}
		q := i + j
		i = q + 1
		if !pathBoundary(s, q+len(anchor)) {
			continue
		}
		m, p := a, q // s[p:] agrees with k.path[m:]
		for m > 0 && p > 0 && s[p-1] == k.path[m-1] {
			m, p = m-1, p-1
		}
		if m == 0 || p > 0 && isAlnum(s[p-1]) {
			continue // the whole spelling (a token already), or glued to a word
		}
		spans = append(spans, span{p, q + len(anchor), p + max(k.at-m, 0), p + end - m})
	}
}

// heads adds the cuts that keep the start of k's spelling: the anchor
// (the spelling through the nonce's first byte, where a path can start)
// extended while s agrees with the spelling, up to a path boundary short
// of its end.
func (k cut) heads(s []byte, n int, spans []span) []span {
	anchor := k.path[:k.at+1]
	for i := 0; ; {
		j := bytes.Index(s[i:], anchor)
		if j < 0 {
			return spans
		}
		q := i + j
		i = q + 1
		if k.rel && !pathStart(s, q) {
			continue
		}
		e := len(anchor)
		for e < len(k.path) && q+e < len(s) && s[q+e] == k.path[e] {
			e++
		}
		if e == len(k.path) || !pathBoundary(s, q+e) {
			continue
		}
		spans = append(spans, span{q, q + e, q + k.at, q + min(e, k.at+n)})
	}
}
