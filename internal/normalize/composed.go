package normalize

import "strings"

// Composed normalizes a composed session log (package internal/httplog)
// in the context that already normalized its model payloads as they were
// relayed (the harness's live context): like Session, except that the
// members of a model/* event's data for which held reports true (its
// payloads) are only written in the canonical form, so that each payload
// is normalized once. Everything else takes the rules: the header, the
// call numbers, methods and paths, a payload kept as text.
func Composed(raw []byte, c *Context, held func(key string) bool) ([]byte, error) {
	if c == nil {
		c = &Context{}
	}
	return c.lines(raw, "session", func(n int, root int32) {
		data := c.modelData(n, root)
		if data < 0 {
			c.sessionLine(n, root)
			return
		}
		kept := c.tree.unlink(data, held)
		c.sessionLine(n, root)
		c.tree.relink(data, kept)
	})
}

// modelData is the data object of event line n when it is a model/*
// event, else -1.
func (c *Context) modelData(n int, root int32) int32 {
	t := &c.tree
	if n == 1 || t.nodes[root].kind != kindObject {
		return -1
	}
	if typ, _ := t.memberString(root, "type"); !strings.HasPrefix(typ, "model/") {
		return -1
	}
	data := t.member(root, "data")
	if data < 0 || t.nodes[data].kind != kindObject {
		return -1
	}
	return data
}

// unlink takes the members of object i whose key held names out of its
// list and returns them.
func (t *tree) unlink(i int32, held func(string) bool) []int32 {
	var kept []int32
	prev := int32(-1)
	for m := t.nodes[i].first; m >= 0; m = t.nodes[m].next {
		if !held(string(t.nodes[m].key)) {
			prev = m
			continue
		}
		kept = append(kept, m)
		if prev < 0 {
			t.nodes[i].first = t.nodes[m].next
		} else {
			t.nodes[prev].next = t.nodes[m].next
		}
	}
	return kept
}

// relink puts members unlink took back into object i (the encoder sorts
// members by key, so where they go is no matter).
func (t *tree) relink(i int32, ms []int32) {
	for _, m := range ms {
		t.nodes[m].next = t.nodes[i].first
		t.nodes[i].first = m
	}
}
