package normalize

// This file applies the value rules to a parsed line: typed identities by
// the key that holds them, zeroed times and durations, and the text rules
// for every other string and every key.

// keyKinds are the identity keys of the compared formats
// (identityKeys) as token kinds.
var keyKinds = func() map[string]kind {
	m := map[string]kind{}
	for key, name := range identityKeys {
		for k, n := range kindNames {
			if n == name {
				m[key] = kind(k)
			}
		}
	}
	return m
}()

// keyKind returns the kind of identity the string under key is, or none.
func keyKind(key []byte) kind {
	if k, ok := keyKinds[string(key)]; ok {
		return k
	}
	return none
}

// zeroKey reports whether key holds a time or a duration; a number under
// it becomes 0.
func zeroKey(key []byte) bool {
	switch string(key) {
	case "time", "createdAt", "durationMs", "duration", "elapsedMs":
		return true
	}
	return false
}

// maxKnownLen bounds the strings looked up as a whole in the token table:
// identities are short, and hashing long text is wasted time.
const maxKnownLen = 256

var zero = []byte("0")

// value walks node i. idKind is the kind an object's "id" member gets
// (none: no rule); arrays pass it on to their elements.
func (c *Context) value(i int32, idKind kind) {
	t := &c.tree
	switch t.nodes[i].kind {
	case kindString:
		t.nodes[i].val = c.str(t.nodes[i].val)
	case kindArray:
		for e := t.nodes[i].first; e >= 0; e = t.nodes[e].next {
			c.value(e, idKind)
		}
	case kindObject:
		c.object(i, idKind, none)
	}
}

// object walks the members of object i. dataKind is the idKind of its
// "data" member (for session events).
func (c *Context) object(i int32, idKind, dataKind kind) {
	t := &c.tree
	if typ, _ := t.memberString(i, "type"); toolCallObjects[typ] {
		idKind = kindToolCall
	}
	for m := t.nodes[i].first; m >= 0; m = t.nodes[m].next {
		key := t.nodes[m].key
		k := keyKind(key)
		if idKind != none && string(key) == "id" {
			k = idKind
		}
		t.nodes[m].key = c.str(key)
		v := &t.nodes[m]
		switch {
		case k != none && v.kind == kindString:
			v.val = c.identity(k, v.val)
		case v.kind == kindNumber && zeroKey(key):
			v.val = zero
		case string(key) == "data":
			c.value(m, dataKind)
		case toolCallArrays[string(key)], toolCallMembers[string(key)] && v.kind == kindObject:
			c.value(m, kindToolCall)
		default:
			c.value(m, none)
		}
	}
}

// identity returns the token of a typed value: an existing token stays, the
// same raw value always gets the same token, "" stays "".
func (c *Context) identity(k kind, s []byte) []byte {
	if len(s) == 0 || c.isToken(s) {
		return s
	}
	return c.assign(k, s)
}

// str applies the rules for a string that no key types: a token stays, a
// raw value that already has a token gets it, other text gets the text
// rules.
func (c *Context) str(s []byte) []byte {
	if len(s) == 0 || c.isToken(s) {
		return s
	}
	if len(s) <= maxKnownLen && c.rawLens[len(s)] {
		if tok, ok := c.tokens[string(s)]; ok {
			return []byte(tok)
		}
	}
	return c.text(s)
}

// isToken reports whether s is exactly one token, advancing its kind's
// counter when it is numbered.
func (c *Context) isToken(s []byte) bool {
	k, num, n := parseToken(s)
	if n != len(s) {
		return false
	}
	if k != none {
		c.advance(k, num)
	}
	return true
}
