package subagent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
)

// canonical returns the canonical JSON of v: object keys sorted, no
// insignificant space, numbers kept as their literal text (lossless), no
// HTML escaping. Array order is kept.
func canonical(v any) ([]byte, error) {
	raw, err := marshal(v)
	if err != nil {
		return nil, err
	}
	tree, err := decodeTree(raw)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	writeCanonical(&buf, tree)
	return buf.Bytes(), nil
}

// fingerprint is "sha256:" + the hex SHA-256 of v's canonical JSON.
func fingerprint(v any) (string, error) {
	c, err := canonical(v)
	if err != nil {
		return "", err
	}
	return digest(c), nil
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// marshal encodes v without HTML escaping.
func marshal(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// decodeTree decodes raw into maps, slices, strings, bools, nil and
// json.Number.
func decodeTree(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("invalid JSON: more than one value")
	}
	return v, nil
}

func writeCanonical(buf *bytes.Buffer, v any) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonical(buf, k)
			buf.WriteByte(':')
			writeCanonical(buf, t[k])
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonical(buf, e)
		}
		buf.WriteByte(']')
	case json.Number:
		buf.WriteString(t.String())
	default:
		b, _ := marshal(t) // strings, bools and nil cannot fail
		buf.Write(b)
	}
}

// toTree converts v (any JSON-encodable value) to the decoded tree form.
func toTree(v any) (any, error) {
	raw, err := marshal(v)
	if err != nil {
		return nil, err
	}
	return decodeTree(raw)
}
