package proxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// ignoreRules are the parsed Config.Ignore.
type ignoreRules struct {
	pointers [][]string
	headers  map[string]bool
}

func parseIgnore(rules []string) (ignoreRules, error) {
	ig := ignoreRules{headers: map[string]bool{}}
	for _, r := range rules {
		if h, ok := strings.CutPrefix(r, "header:"); ok && h != "" {
			ig.headers[strings.ToLower(h)] = true
			continue
		}
		if !strings.HasPrefix(r, "/") {
			return ig, fmt.Errorf("proxy: ignore %q: want a JSON pointer (\"/member/…\") or \"header:NAME\"", r)
		}
		var toks []string
		for _, t := range strings.Split(r[1:], "/") {
			toks = append(toks, strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~"))
		}
		ig.pointers = append(ig.pointers, toks)
	}
	return ig, nil
}

// drop removes the value at pointer toks from v (a decoded JSON value).
func drop(v any, toks []string) any {
	if len(toks) == 0 {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		if len(toks) == 1 {
			delete(x, toks[0])
		} else if c, ok := x[toks[0]]; ok {
			x[toks[0]] = drop(c, toks[1:])
		}
	case []any:
		i, err := strconv.Atoi(toks[0])
		if err != nil || i < 0 || i >= len(x) {
			return v
		}
		if len(toks) == 1 {
			return append(x[:i:i], x[i+1:]...)
		}
		x[i] = drop(x[i], toks[1:])
	}
	return v
}

// canonical is a request as the proxy identifies it: normalized, ignore
// rules applied, a decoded JSON body (a string when the body is not JSON).
type canonical struct {
	Method string            `json:"method"`
	Path   string            `json:"path"`
	Header map[string]string `json:"headers,omitempty"`
	Body   any               `json:"body,omitempty"`
}

// identify returns the fingerprint of q: SHA-256 of its method, path and
// identity (see identity).
func (p *Proxy) identify(q httplog.Request) string {
	header, body := p.identity(q)
	return hash(q, header, body)
}

// hash is the fingerprint of q with the identity header, body.
func hash(q httplog.Request, header, body []byte) string {
	h := sha256.New()
	io.WriteString(h, q.Method+"\n"+q.Path+"\n")
	h.Write(header)
	io.WriteString(h, "\n")
	h.Write(body)
	return hex.EncodeToString(h.Sum(nil))
}

// identity is what identifies q besides its method and path: its kept
// headers (ignored ones left out, sorted, "name: value\n" each) and its
// canonical body (see strictjson.AppendCanonical, ignore pointers applied; a
// body that is not JSON as it is).
func (p *Proxy) identity(q httplog.Request) (header, body []byte) {
	names := make([]string, 0, len(q.Header))
	for k := range q.Header {
		if !p.ignore.headers[k] {
			names = append(names, k)
		}
	}
	sort.Strings(names)
	for _, k := range names {
		header = append(header, k+": "+q.Header[k]+"\n"...)
	}
	switch {
	case len(q.Body) == 0:
	case json.Valid(q.Body):
		body = strictjson.AppendCanonical(make([]byte, 0, len(q.Body)), q.Body, p.ignore.pointers)
	default:
		body = q.Body
	}
	return header, body
}

// canonicalOf is q decoded, ignore rules applied: what drifts compare.
func (p *Proxy) canonicalOf(q httplog.Request) canonical {
	c := canonical{Method: q.Method, Path: q.Path, Body: decodeBody(q.Body)}
	for k, v := range q.Header {
		if !p.ignore.headers[k] {
			if c.Header == nil {
				c.Header = map[string]string{}
			}
			c.Header[k] = v
		}
	}
	for _, ptr := range p.ignore.pointers {
		c.Body = drop(c.Body, ptr)
	}
	return c
}

func decodeBody(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.InputOffset() != int64(len(bytes.TrimRight(b, " \t\r\n"))) {
		return string(b)
	}
	return v
}

// readRequest reads r's body and returns the request as kept:
// allowlisted headers and the body, not yet normalized.
func (p *Proxy) readRequest(r *http.Request, path string) (httplog.Request, error) {
	q := httplog.Request{Method: r.Method, Path: path}
	raw, err := readCapped(r.Body, p.cfg.maxRequestBytes(), "request body")
	if err != nil {
		return q, fmt.Errorf("read request body: %w", err)
	}
	if err := p.countBody(len(raw)); err != nil {
		return q, err
	}
	if len(raw) > 0 {
		q.Body = raw
	}
	for name := range p.reqHdr {
		if v := r.Header.Values(name); len(v) > 0 {
			if q.Header == nil {
				q.Header = map[string]string{}
			}
			q.Header[name] = strings.Join(v, ", ")
		}
	}
	return q, nil
}

// normalizeRequest returns q with its headers and body normalized.
func (p *Proxy) normalizeRequest(q httplog.Request) (httplog.Request, error) {
	var err, berr error
	q.Header, err = p.normalizeHeader(q.Header)
	q.Body, berr = p.normalize(q.Body)
	return q, errors.Join(err, berr)
}

// normalize applies Config.Normalize to a JSON payload; anything else is
// kept as it is. The real key, should a payload hold it, becomes "[key]".
// A JSON payload that breaks the JSON rules of internal/strictjson (a
// repeated key, nesting too deep) is refused.
func (p *Proxy) normalize(b []byte) ([]byte, error) {
	b = p.scrub(b) // an upstream that echoes the key
	if b == nil || !json.Valid(b) {
		return b, nil
	}
	if err := strictjson.Check(b, "$"); err != nil {
		return b, fmt.Errorf("normalize: %w", err)
	}
	if p.cfg.Normalize == nil {
		return b, nil
	}
	n, err := p.cfg.Normalize(b)
	if err != nil {
		return b, fmt.Errorf("normalize: %w", err)
	}
	return n, nil
}

func (p *Proxy) normalizeHeader(h map[string]string) (map[string]string, error) {
	for k, v := range h {
		h[k] = p.scrubString(v)
	}
	if p.cfg.Normalize == nil || len(h) == 0 {
		return h, nil
	}
	b, _ := strictjson.Encode(h)
	n, err := p.cfg.Normalize(b)
	if err != nil {
		return h, fmt.Errorf("normalize headers: %w", err)
	}
	var out map[string]string
	if err := json.Unmarshal(n, &out); err != nil {
		return h, fmt.Errorf("normalize headers: %w", err)
	}
	return out, nil
}

func (p *Proxy) expand(b []byte) []byte {
	if p.cfg.Expand == nil || b == nil {
		return b
	}
	return p.cfg.Expand(b)
}

// index groups the recorded exchanges by fingerprint, in call order.
func (p *Proxy) index() error {
	p.groups, p.next = map[string][]int{}, map[string]int{}
	p.consumed = make([]bool, len(p.cfg.Exchanges))
	p.kept = make([]*httplog.Exchange, len(p.cfg.Exchanges))
	if p.cfg.Numbering != nil {
		p.exact = make([]string, len(p.cfg.Exchanges))
	}
	for i, x := range p.cfg.Exchanges {
		if x.Request.Method == "" || x.Request.Path == "" {
			return fmt.Errorf("proxy: recorded call %d: no method or path", i+1)
		}
		h, b := p.identity(x.Request)
		fp := hash(x.Request, h, b)
		if p.exact != nil {
			p.exact[i], fp = fp, hash(x.Request, p.cfg.Numbering.Mask(h), p.cfg.Numbering.Mask(b))
		}
		p.groups[fp] = append(p.groups[fp], i)
	}
	return nil
}

// Numbering is how a replay matches requests whose own new values (a
// request id each racing call mints) were numbered in the order the
// requests came, which need not be the recording's: requests are grouped
// by a fingerprint with Mask applied, and one matches the first unserved
// recorded call of its group that it equals, fingerprint for fingerprint,
// once Renumber has given its provisional tokens the recorded call's.
type Numbering struct {
	// Mask returns a normalized payload with the numbers of its numbered
	// tokens left out.
	Mask func([]byte) []byte
	// Renumber pairs the numbered tokens of a live request's parts with a
	// recorded call's, in order; ok false: they do not line up. The parts
	// are the whole request (its headers as a JSON object, its body) or,
	// when those do not line up (an ignored part differs), its identity
	// (its headers and body as the fingerprint reads them). apply gives
	// the whole live request the recorded tokens; commit then makes those
	// tokens stand for the live values from now on, gives any provisional
	// token left (in an ignored part) the next number, and returns the
	// whole request as kept. recorded nil: the request matched no recorded
	// call, and commit only numbers its provisional tokens (what the drift
	// shows).
	Renumber func(live, recorded [][]byte) (apply, commit func([][]byte) [][]byte, ok bool)
}

// match returns the recorded call (- 1) that q answers, or -1, and marks
// it served; q is returned renumbered (see Numbering). The caller holds
// p.mu.
func (p *Proxy) match(q httplog.Request) (int, httplog.Request) {
	if p.cfg.Numbering == nil {
		fp := p.identify(q)
		g := p.groups[fp]
		if p.next[fp] >= len(g) {
			return -1, q
		}
		idx := g[p.next[fp]]
		p.next[fp]++
		p.consumed[idx] = true
		return idx, q
	}
	lh, lb := p.identity(q)
	fp := hash(q, p.cfg.Numbering.Mask(lh), p.cfg.Numbering.Mask(lb))
	g := p.groups[fp]
	live := wholeParts(q)
	for _, idx := range g[p.next[fp]:] {
		if p.consumed[idx] {
			continue
		}
		rec := p.cfg.Exchanges[idx].Request
		apply, commit, ok := p.cfg.Numbering.Renumber(live, wholeParts(rec))
		if !ok {
			rh, rb := p.identity(rec)
			apply, commit, ok = p.cfg.Numbering.Renumber([][]byte{lh, lb}, [][]byte{rh, rb})
		}
		if !ok {
			continue
		}
		r, err := withParts(q, apply)
		if err != nil || p.identify(r) != p.exact[idx] {
			continue
		}
		if r, err = withParts(r, commit); err != nil {
			continue
		}
		p.consumed[idx] = true
		for p.next[fp] < len(g) && p.consumed[g[p.next[fp]]] {
			p.next[fp]++
		}
		return idx, r
	}
	if _, commit, ok := p.cfg.Numbering.Renumber(live, nil); ok {
		if r, err := withParts(q, commit); err == nil {
			return -1, r
		}
	}
	return -1, q
}

// wholeParts are q's headers as a JSON object and its body.
func wholeParts(q httplog.Request) [][]byte {
	h, _ := strictjson.Encode(q.Header)
	return [][]byte{h, q.Body}
}

// withParts is q with f applied to its whole parts.
func withParts(q httplog.Request, f func([][]byte) [][]byte) (httplog.Request, error) {
	out := f(wholeParts(q))
	r := q
	r.Header, r.Body = nil, out[1]
	if err := json.Unmarshal(out[0], &r.Header); err != nil {
		return q, err
	}
	return r, nil
}
