package normalize

import (
	"fmt"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// This file holds the JSON reader: a strict, allocation-light parser that
// turns one line into a tree of nodes in a reusable arena, under the JSON
// rules of internal/strictjson (a repeated key is refused; at most
// strictjson.MaxDepth deep), its tokens read by strictjson's ScanString,
// ScanNumber and ScanLiteral. Strings are decoded (escapes resolved,
// invalid UTF-8 replaced by U+FFFD exactly as encoding/json does); numbers
// and literals keep their raw bytes, so they are written back byte for
// byte.

type nodeKind uint8

const (
	kindLiteral nodeKind = iota // true, false, null (raw bytes in val)
	kindNumber                  // raw bytes in val
	kindString                  // decoded bytes in val
	kindArray
	kindObject
)

// node is one JSON value. Children of arrays and objects form a linked list
// through first/next; an object member carries its decoded key.
type node struct {
	kind  nodeKind
	val   []byte
	key   []byte
	first int32
	next  int32
}

// tree is the arena one line is parsed into; it is reset per line.
type tree struct {
	nodes []node
	buf   []byte  // decoded strings that needed unescaping
	idx   []int32 // scratch stack for sorting object members
}

func (t *tree) reset() {
	t.nodes = t.nodes[:0]
	t.buf = t.buf[:0]
	t.idx = t.idx[:0]
}

func (t *tree) add(k nodeKind) int32 {
	t.nodes = append(t.nodes, node{kind: k, first: -1, next: -1})
	return int32(len(t.nodes) - 1)
}

// member returns the member of object i named name, or -1.
func (t *tree) member(i int32, name string) int32 {
	for m := t.nodes[i].first; m >= 0; m = t.nodes[m].next {
		if string(t.nodes[m].key) == name {
			return m
		}
	}
	return -1
}

// memberString returns the string value of member name of object i.
func (t *tree) memberString(i int32, name string) (string, bool) {
	if t.nodes[i].kind != kindObject {
		return "", false
	}
	m := t.member(i, name)
	if m < 0 || t.nodes[m].kind != kindString {
		return "", false
	}
	return string(t.nodes[m].val), true
}

// parser reads one JSON text.
type parser struct {
	t     *tree
	data  []byte
	pos   int
	depth int
}

// parse parses data as exactly one JSON value surrounded by optional
// whitespace and returns the root node.
func (t *tree) parse(data []byte) (int32, error) {
	t.reset()
	p := parser{t: t, data: data}
	p.space()
	root, err := p.value()
	if err != nil {
		return -1, err
	}
	p.space()
	if p.pos != len(data) {
		return -1, p.errorf("invalid character %q after top-level value", data[p.pos])
	}
	return root, nil
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: "+format, append([]any{p.pos}, args...)...)
}

func (p *parser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) value() (int32, error) {
	if p.pos >= len(p.data) {
		return -1, p.errorf("unexpected end of JSON input")
	}
	k, end, err := kindNumber, 0, (*strictjson.SyntaxError)(nil)
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.container(kindObject)
	case c == '[':
		return p.container(kindArray)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return -1, err
		}
		i := p.t.add(kindString)
		p.t.nodes[i].val = s
		return i, nil
	case c == '-' || (c >= '0' && c <= '9'):
		end, err = strictjson.ScanNumber(p.data, p.pos)
	case c == 't' || c == 'f' || c == 'n':
		k = kindLiteral
		end, err = strictjson.ScanLiteral(p.data, p.pos)
	default:
		return -1, p.errorf("invalid character %q looking for beginning of value", c)
	}
	if err != nil {
		return -1, p.syntax(err)
	}
	i := p.t.add(k)
	p.t.nodes[i].val = p.data[p.pos:end]
	p.pos = end
	return i, nil
}

// syntax is the error of a defect strictjson found.
func (p *parser) syntax(err *strictjson.SyntaxError) error {
	p.pos = err.Off
	return p.errorf("%s", err.Msg)
}

// container reads an array or an object; p.pos is at its opening bracket.
func (p *parser) container(k nodeKind) (int32, error) {
	closing, what := byte(']'), "array element"
	if k == kindObject {
		closing, what = '}', "object key:value pair"
	}
	p.depth++
	if p.depth > strictjson.MaxDepth {
		return -1, p.errorf("%s", strictjson.TooDeep)
	}
	p.pos++
	p.space()
	c, last := p.t.add(k), int32(-1)
	var keys strictjson.Keys
	for first := true; ; first = false {
		if first && p.pos < len(p.data) && p.data[p.pos] == closing {
			p.pos++
			p.depth--
			return c, nil
		}
		at := p.pos
		v, err := p.element(k)
		if err != nil {
			return -1, err
		}
		if k == kindObject && keys.Repeated(p.t.nodes[v].key) {
			p.pos = at
			return -1, p.errorf("%s %q", strictjson.DuplicateKey, p.t.nodes[v].key)
		}
		if last < 0 {
			p.t.nodes[c].first = v
		} else {
			p.t.nodes[last].next = v
		}
		last = v
		if p.pos >= len(p.data) {
			return -1, p.errorf("unexpected end of JSON input")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
			p.space()
		case closing:
			p.pos++
			p.depth--
			return c, nil
		default:
			return -1, p.errorf("invalid character %q after %s", p.data[p.pos], what)
		}
	}
}

// element reads one array element or object member (key, colon, value)
// and the whitespace after it.
func (p *parser) element(k nodeKind) (int32, error) {
	var key []byte
	if k == kindObject {
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return -1, p.errorf("looking for beginning of object key string")
		}
		var err error
		if key, err = p.str(); err != nil {
			return -1, err
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return -1, p.errorf("after object key: want ':'")
		}
		p.pos++
		p.space()
	}
	v, err := p.value()
	if err != nil {
		return -1, err
	}
	p.t.nodes[v].key = key
	p.space()
	return v, nil
}

// str reads a string starting at the opening quote: a sub-slice of the
// input when there is nothing to decode, else decoded into the tree's
// buffer.
func (p *parser) str() ([]byte, error) {
	if end := strictjson.PlainEnd(p.data, p.pos); end > 0 {
		s := p.data[p.pos+1 : end-1]
		p.pos = end
		return s, nil
	}
	from := len(p.t.buf)
	buf, str, err := strictjson.AppendString(p.t.buf, p.data, p.pos)
	if err != nil {
		return nil, p.syntax(err)
	}
	if !str.Decode {
		s := p.data[p.pos+1 : str.End-1]
		p.pos = str.End
		return s, nil
	}
	p.pos = str.End
	p.t.buf = buf
	return buf[from:len(buf):len(buf)], nil
}
