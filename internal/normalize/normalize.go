package normalize

import (
	"bytes"
	"fmt"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// Session normalizes a session log: line 1 is the header (its "id" is a
// session), every other line an event. Times and durations become 0 and the
// value rules apply everywhere. A nil c means a fresh Context without a cwd.
func Session(raw []byte, c *Context) ([]byte, error) {
	if c == nil {
		c = &Context{}
	}
	return c.lines(raw, "session", c.sessionLine)
}

// lines parses raw line by line, lets rules rewrite each parsed line and
// returns the encoded lines. While they are raw's own bytes (a fixture in
// normal form) nothing is copied: the result is then raw itself (its
// capacity cut to its length), and a large fixture is held once.
func (c *Context) lines(raw []byte, what string, rules func(n int, root int32)) ([]byte, error) {
	return c.encode(raw, len(raw), func(fn func(int, []byte) error) error { return strictjson.Each(bytes.NewReader(raw), fn) }, what, rules)
}

// encode is lines over the lines each yields, size bytes in all; raw, when
// not nil, is the text they come from.
func (c *Context) encode(raw []byte, size int, each func(func(n int, line []byte) error) error, what string, rules func(n int, root int32)) ([]byte, error) {
	c.prepare()
	var out, line []byte // out: nil while the lines encode to raw[:same]
	same := 0
	if raw == nil {
		out = make([]byte, 0, size+size/8)
	}
	err := each(func(n int, in []byte) error {
		root, err := c.tree.parse(in)
		if err != nil {
			if what == "stdout" {
				err = fmt.Errorf("not JSON (%w): %q", err, quote(in))
			}
			return &LineError{Line: n, Err: err}
		}
		rules(n, root)
		if out != nil {
			out = append(c.tree.encode(out, root), '\n')
			return nil
		}
		line = append(c.tree.encode(line[:0], root), '\n')
		if bytes.HasPrefix(raw[same:], line) {
			same += len(line)
			return nil
		}
		out = append(append(make([]byte, 0, size+size/8), raw[:same]...), line...)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("normalize: %s: %w", what, err)
	}
	if out == nil {
		return raw[:same:same], nil
	}
	return out, nil
}

// StdoutLines is Stdout over the lines of a stdout, each without its
// "\n", as the harness records them. It lets each line go (sets it to nil)
// once it is normalized, so a large output is not held twice.
func StdoutLines(lines [][]byte, c *Context) ([]byte, error) {
	if c == nil {
		c = &Context{}
	}
	size := 0
	for _, l := range lines {
		size += len(l) + 1
	}
	return c.encode(nil, size, func(fn func(int, []byte) error) error {
		for i, l := range lines {
			lines[i] = nil
			if err := fn(i+1, l); err != nil {
				return err
			}
		}
		return nil
	}, "stdout", c.stdoutLine)
}

// LineError is a parse failure at a 1-based line of the input; callers that
// know the file name print it as "file:line: err".
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }

func (e *LineError) Unwrap() error { return e.Err }

func (c *Context) sessionLine(n int, root int32) {
	switch {
	case c.tree.nodes[root].kind != kindObject:
		c.value(root, none)
	case n == 1:
		c.object(root, kindSession, none)
	default:
		dataKind := none
		if typ, _ := c.tree.memberString(root, "type"); messageEvents[typ] {
			dataKind = kindMessage
		}
		c.object(root, none, dataKind)
	}
}

// maxQuote is how much of a bad stdout line an error quotes.
const maxQuote = 200

// Stdout normalizes an agent's stdout transcript: every line must be a JSON
// value (stdout is protocol only). The ids of requests the agent sends are
// renumbered {{agentRpc:N}}, responses keep the client's ids, then the value
// rules apply. A nil c means a fresh Context without a cwd.
func Stdout(raw []byte, c *Context) ([]byte, error) {
	if c == nil {
		c = &Context{}
	}
	return c.lines(raw, "stdout", c.stdoutLine)
}

// stdoutLine is the rules of one stdout line.
func (c *Context) stdoutLine(_ int, root int32) {
	if c.tree.nodes[root].kind == kindObject {
		c.rpcIDs(root)
	}
	c.value(root, none)
}

func quote(line []byte) string {
	if len(line) > maxQuote {
		return string(line[:maxQuote]) + "…"
	}
	return string(line)
}

// rpcIDs renumbers the id of a request the agent sent, and the requestId of
// its $/cancel_request.
func (c *Context) rpcIDs(root int32) {
	t := &c.tree
	method, isCall := t.memberString(root, "method")
	if !isCall {
		return
	}
	if id := t.member(root, "id"); id >= 0 {
		c.rpcID(id)
	}
	if method != "$/cancel_request" {
		return
	}
	if params := t.member(root, "params"); params >= 0 && t.nodes[params].kind == kindObject {
		if id := t.member(params, "requestId"); id >= 0 {
			c.rpcID(id)
		}
	}
}

// rpcID replaces the id node i (a number or a string) by its agentRpc token.
func (c *Context) rpcID(i int32) {
	n := &c.tree.nodes[i]
	if n.kind != kindNumber && n.kind != kindString {
		return
	}
	n.val = c.agentRPC(n.val, n.kind == kindString)
	n.kind = kindString
}

// Payload normalizes one JSON value that a model sent (an event's data, a
// response body) with the value rules, and no JSON-RPC renumbering. A
// payload the rules leave as it was comes back byte for byte (its layout
// and key order kept: replay serves it again); a changed one in the
// canonical form. A nil c means a fresh Context without a cwd.
func Payload(raw []byte, c *Context) ([]byte, error) {
	return payload(raw, c, true)
}

// Request normalizes one JSON value sent to a model (a request body, a
// header set) like Payload, always into the canonical form: requests are
// identified, never served again.
func Request(raw []byte, c *Context) ([]byte, error) {
	return payload(raw, c, false)
}

func payload(raw []byte, c *Context, keep bool) ([]byte, error) {
	if c == nil {
		c = &Context{}
	}
	c.prepare()
	root, err := c.tree.parse(raw)
	if err != nil {
		return nil, fmt.Errorf("normalize: payload: %w", err)
	}
	var before []byte
	if keep {
		before = c.tree.encode(nil, root)
	}
	c.value(root, none)
	after := c.tree.encode(nil, root)
	if keep && bytes.Equal(before, after) {
		return raw, nil
	}
	return after, nil
}
