package proxy

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// DefaultMaxCalls is Config.MaxCalls when it is 0: the model calls one
// run may make.
const DefaultMaxCalls = 1000

// ErrTooManyCalls is wrapped by Report.Err when requests went past
// Config.MaxCalls.
var ErrTooManyCalls = errors.New("too many model calls")

// Defaults of the other caps in Config.
const (
	defaultMaxRequestBytes  = 32 << 20
	defaultMaxRunRequest    = 128 << 20
	defaultMaxEvents        = 100_000
	defaultMaxResponseBytes = 64 << 20
)

// errTooLarge is wrapped by the errors of a request or an answer over its
// cap.
var errTooLarge = errors.New("over the cap")

func (c Config) maxRequestBytes() int64  { return cmp.Or(c.MaxRequestBytes, defaultMaxRequestBytes) }
func (c Config) maxRunRequest() int64    { return cmp.Or(c.MaxRunRequestBytes, defaultMaxRunRequest) }
func (c Config) maxEvents() int          { return cmp.Or(c.MaxEvents, defaultMaxEvents) }
func (c Config) maxResponseBytes() int64 { return cmp.Or(c.MaxResponseBytes, defaultMaxResponseBytes) }
func (c Config) maxCalls() int           { return cmp.Or(c.MaxCalls, DefaultMaxCalls) }

// capped reads at most max bytes of r; past them it fails with an error
// wrapping errTooLarge that names what was read (the transport has
// already undone any gzip, so a compressed bomb is counted as it unpacks).
type capped struct {
	r    io.Reader
	left int64
	max  int64
	what string
}

func (c *capped) Read(b []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("%s: more than %d bytes (after decoding): %w", c.what, c.max, errTooLarge)
	}
	if int64(len(b)) > c.left {
		b = b[:c.left]
	}
	n, err := c.r.Read(b)
	c.left -= int64(n)
	return n, err
}

// countBody adds n bytes to the request bodies the run has sent, or fails
// with an error wrapping errTooLarge when they would pass
// Config.MaxRunRequestBytes; the body is then not kept.
func (p *Proxy) countBody(n int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if max := p.cfg.maxRunRequest(); p.bodyBytes+int64(n) > max {
		return fmt.Errorf("the request bodies of this run: more than %d bytes in all: %w", max, errTooLarge)
	}
	p.bodyBytes += int64(n)
	return nil
}

// readCapped reads all of r, at most max bytes.
func readCapped(r io.Reader, max int64, what string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err == nil && int64(len(b)) > max {
		err = fmt.Errorf("%s: more than %d bytes: %w", what, max, errTooLarge)
	}
	return b, err
}

// endpoint checks that a request the agent sends may go upstream with the
// key: one of the dialect's endpoints (dialect.Dialect.Endpoints: method
// and path, under any prefix) with a clean path (no dot or empty segments,
// no escaped slash, dot, backslash, "?", "#" or "%", no control
// character), nothing else. path is decoded, as the upstream reads it
// (upstreamRequest sends it escaped anew).
func (p *Proxy) endpoint(r *http.Request, path string) error {
	if err := cleanPath(r, path); err != nil {
		return err
	}
	if e, _, ok := p.dialect.Route(path); ok && e.Method == r.Method {
		return nil
	}
	var names []string
	for _, e := range p.dialect.Endpoints {
		names = append(names, e.Method+" "+e.Path)
	}
	return fmt.Errorf("%s %q is not an endpoint of %s (%s): not forwarded", r.Method, path, p.dialect.Name, strings.Join(names, ", "))
}

// cleanPath refuses a path that could name something else upstream than
// it seems to.
func cleanPath(r *http.Request, path string) error {
	for _, c := range path {
		if c < 0x20 || c == 0x7f {
			return fmt.Errorf("request path %q holds a control character: not forwarded", path)
		}
	}
	esc := strings.ToLower(r.URL.EscapedPath())
	for _, e := range []string{"%2f", "%2e", "%5c", "%3f", "%23", "%25"} {
		if strings.Contains(esc, e) {
			return fmt.Errorf("request path %q holds an escaped slash, dot, backslash, \"?\", \"#\" or \"%%\": not forwarded", r.URL.EscapedPath())
		}
	}
	for _, seg := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("request path %q is not clean (empty, . or .. segment): not forwarded", path)
		}
	}
	return nil
}

// scrub replaces the real key in b by "[key]", in every disguise the
// secret scan knows (reversed, hex, base64, internal/secrets), and a
// line of b that still holds it escaped (percent or \u escapes) by "[key]"
// whole, its line break kept (an SSE event keeps its framing): nothing the
// upstream says reaches the agent or a recording with the key in it,
// however it is encoded.
func (p *Proxy) scrub(b []byte) []byte {
	if p.cfg.Key == "" {
		return b
	}
	if bytes.Contains(b, []byte(p.cfg.Key)) {
		b = bytes.ReplaceAll(b, []byte(p.cfg.Key), []byte("[key]")) // a key of any length
	}
	if _, hit := p.secret.Find(b); !hit {
		return b
	}
	b = []byte(p.secret.Redact(string(b)))
	for {
		h, hit := p.secret.Find(b)
		if !hit {
			return b
		}
		lines := bytes.SplitAfter(b, []byte("\n"))
		l := lines[h.Line-1]
		lines[h.Line-1] = append([]byte("[key]"), l[len(bytes.TrimRight(l, "\r\n")):]...)
		b = bytes.Join(lines, nil)
	}
}

// scrubString is scrub for a message.
func (p *Proxy) scrubString(s string) string { return string(p.scrub([]byte(s))) }
