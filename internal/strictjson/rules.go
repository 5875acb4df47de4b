package strictjson

import (
	"bytes"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// MaxDepth is how deeply arrays and objects may nest: 1,000. encoding/json
// allows 10,000; a value nested deeper than a thousand levels is an attack
// or a bug, and refusing it keeps every reader's stack, and the paths its
// errors name, small.
const MaxDepth = 1000

// Error is a violation Check found: Msg about the value at Path, whose
// first byte (for an object member: its key's) is at offset Off.
type Error struct {
	Off  int
	Path string
	Msg  string
}

func (e *Error) Error() string { return e.Path + ": " + e.Msg }

// Messages of Check's errors.
const (
	DuplicateKey = "duplicate key"
)

// TooDeep is the message of a value nested deeper than MaxDepth.
var TooDeep = fmt.Sprintf("nested deeper than %d", MaxDepth)

// Check reports the first repeated object key or the first array or
// object nested deeper than MaxDepth in data, which json.Valid accepted;
// root is the path of data's value ("$"). nil: neither. The path of the
// error is built only when there is one.
func Check(data []byte, root string) *Error {
	var few [16]step // one allocation for most documents, which nest less deep
	c := checker{b: data, steps: few[:0]}
	c.i = Space(data, 0)
	if c.value(0) {
		return nil
	}
	return &Error{Off: c.i, Path: c.path(root), Msg: c.msg}
}

// step is one level of the path to the value being checked: the raw key
// of an object member, or an array index.
type step struct {
	key   []byte // nil: an array element
	index int
}

// checker walks valid JSON, keeping the steps to where it is.
type checker struct {
	b     []byte
	i     int
	steps []step
	msg   string
}

// shownSteps is how many steps the path of a value nested too deep shows
// before "…": the error stays one readable line.
const shownSteps = 8

// path spells the steps below root: ".key" and "[index]".
func (c *checker) path(root string) string {
	p := []byte(root)
	steps := c.steps
	if c.msg == TooDeep && len(steps) > shownSteps {
		steps = steps[:shownSteps]
	}
	for _, s := range steps {
		if s.key == nil {
			p = append(append(append(p, '['), strconv.Itoa(s.index)...), ']')
		} else {
			p = append(append(p, '.'), Unquote(s.key)...)
		}
	}
	if len(steps) < len(c.steps) {
		p = append(p, "…"...)
	}
	return string(p)
}

func (c *checker) fail(msg string) bool {
	c.msg = msg
	return false
}

// value checks the value at c.i, at depth containers deep.
func (c *checker) value(depth int) bool {
	switch c.b[c.i] {
	case '{', '[':
		if depth == MaxDepth {
			return c.fail(TooDeep)
		}
		if c.b[c.i] == '{' {
			return c.object(depth + 1)
		}
		return c.array(depth + 1)
	}
	c.i = ValueEnd(c.b, c.i)
	return true
}

func (c *checker) array(depth int) bool {
	c.i = Space(c.b, c.i+1)
	if c.b[c.i] == ']' {
		c.i++
		return true
	}
	c.steps = append(c.steps, step{})
	for n := 0; ; n++ {
		c.steps[len(c.steps)-1].index = n
		if !c.value(depth) {
			return false
		}
		if c.next() {
			return true
		}
	}
}

func (c *checker) object(depth int) bool {
	c.i = Space(c.b, c.i+1)
	if c.b[c.i] == '}' {
		c.i++
		return true
	}
	var keys Keys
	c.steps = append(c.steps, step{})
	for {
		k := c.i
		c.i = StringEnd(c.b, k)
		raw := c.b[k:c.i]
		c.steps[len(c.steps)-1].key = raw
		if keys.Repeated(keyBytes(raw)) {
			c.i = k
			return c.fail(DuplicateKey)
		}
		c.i = Space(c.b, Space(c.b, c.i)+1) // past the colon
		if !c.value(depth) {
			return false
		}
		if c.next() {
			return true
		}
	}
}

// next steps past the comma or the closing bracket after a member or an
// element and reports whether it was the bracket (the container's step is
// then left).
func (c *checker) next() bool {
	c.i = Space(c.b, c.i)
	end := c.b[c.i] == ']' || c.b[c.i] == '}'
	c.i = Space(c.b, c.i+1)
	if end {
		c.steps = c.steps[:len(c.steps)-1]
	}
	return end
}

// manyKeys is the object size from which Keys compares through a map.
const manyKeys = 16

// Keys finds a repeated key among the keys of one object, given in order:
// the duplicate-key rule of every reader that walks objects itself. The
// zero value is empty; it keeps the keys it is given, not copies.
type Keys struct {
	few  [manyKeys][]byte
	n    int
	seen map[string]bool // past manyKeys
}

// Repeated adds key (decoded) and reports whether it was added before.
func (s *Keys) Repeated(key []byte) bool {
	if s.seen == nil {
		for _, k := range s.few[:s.n] {
			if string(k) == string(key) {
				return true
			}
		}
		if s.n < manyKeys {
			s.few[s.n] = key
			s.n++
			return false
		}
		s.seen = make(map[string]bool, 2*manyKeys)
		for _, k := range s.few {
			s.seen[string(k)] = true
		}
	}
	if s.seen[string(key)] {
		return true
	}
	s.seen[string(key)] = true
	return false
}

// keyBytes is the decoded key of the raw key (quotes included), without
// a copy when it has nothing to decode.
func keyBytes(raw []byte) []byte {
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 && (isPlain(inner) || utf8.Valid(inner)) {
		return inner
	}
	return AppendUnquote(nil, raw)
}
