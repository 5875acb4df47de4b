package normalize

import (
	"bytes"
	"slices"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// This file writes a tree back as compact JSON in the canonical form of
// docs/format.md, "JSON" (strictjson.AppendCanonical writes it for a
// document, this for a tree the rules changed; FuzzCanonical checks it
// against encoding/json): object keys sorted bytewise (the parser refused
// a repeated key), numbers as read, strings as strictjson.AppendQuote writes
// them.

// encode appends the JSON text of node i to dst.
func (t *tree) encode(dst []byte, i int32) []byte {
	n := &t.nodes[i]
	switch n.kind {
	case kindString:
		return strictjson.AppendQuote(dst, n.val)
	case kindArray:
		dst = append(dst, '[')
		for c := n.first; c >= 0; c = t.nodes[c].next {
			if c != n.first {
				dst = append(dst, ',')
			}
			dst = t.encode(dst, c)
		}
		return append(dst, ']')
	case kindObject:
		return t.encodeObject(dst, i)
	default:
		return append(dst, n.val...)
	}
}

func (t *tree) encodeObject(dst []byte, i int32) []byte {
	start := len(t.idx)
	for c := t.nodes[i].first; c >= 0; c = t.nodes[c].next {
		t.idx = append(t.idx, c)
	}
	end := len(t.idx)
	t.sortMembers(t.idx[start:end])
	dst = append(dst, '{')
	for k := start; k < end; k++ {
		m := t.idx[k]
		if k > start {
			dst = append(dst, ',')
		}
		dst = strictjson.AppendQuote(dst, t.nodes[m].key)
		dst = append(dst, ':')
		dst = t.encode(dst, m)
	}
	t.idx = t.idx[:start]
	return append(dst, '}')
}

// sortMembers sorts member indices by key.
func (t *tree) sortMembers(ms []int32) {
	if len(ms) > 16 {
		slices.SortStableFunc(ms, func(a, b int32) int {
			return bytes.Compare(t.nodes[a].key, t.nodes[b].key)
		})
		return
	}
	for i := 1; i < len(ms); i++ {
		for j := i; j > 0 && bytes.Compare(t.nodes[ms[j-1]].key, t.nodes[ms[j]].key) > 0; j-- {
			ms[j-1], ms[j] = ms[j], ms[j-1]
		}
	}
}
