package normalize

import (
	"bytes"
	"slices"
	"unicode/utf8"
)

// This file writes a tree back as compact JSON in the project's one
// canonical form: object keys sorted bytewise (the last of duplicate keys
// wins, as with encoding/json maps), numbers as read, strings escaped exactly
// like encoding/json with SetEscapeHTML(false).

// encode appends the JSON text of node i to dst.
func (t *tree) encode(dst []byte, i int32) []byte {
	n := &t.nodes[i]
	switch n.kind {
	case kindString:
		return appendString(dst, n.val)
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
	first := true
	for k := start; k < end; k++ {
		m := t.idx[k]
		if k+1 < end && bytes.Equal(t.nodes[m].key, t.nodes[t.idx[k+1]].key) {
			continue // a later duplicate wins
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendString(dst, t.nodes[m].key)
		dst = append(dst, ':')
		dst = t.encode(dst, m)
	}
	t.idx = t.idx[:start]
	return append(dst, '}')
}

// sortMembers sorts member indices by key, stably (input order among equal
// keys, so the last duplicate is last).
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

const hexDigits = "0123456789abcdef"

// appendString is encoding/json's string encoder without HTML escaping.
func appendString(dst, src []byte) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(src); {
		for i < len(src) && plain[src[i]] {
			i++
		}
		if i >= len(src) {
			break
		}
		b := src[i]
		if b < utf8.RuneSelf {
			dst = append(dst, src[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRune(src[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, src[start:i]...)
			dst = append(dst, `\ufffd`...)
		} else if c == '\u2028' || c == '\u2029' {
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
		} else {
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, src[start:]...)
	return append(dst, '"')
}
