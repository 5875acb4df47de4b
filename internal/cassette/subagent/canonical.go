package subagent

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/acpsnap/acpsnap/internal/cassette"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// canonical returns the protocol's canonical JSON of v (cassette.Canonical:
// keys sorted, numbers as written, array order kept).
func canonical(v any) ([]byte, error) {
	raw, err := marshal(v)
	if err != nil {
		return nil, err
	}
	return cassette.Canonical(raw)
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

// marshal encodes v without HTML escaping (a json.RawMessage as is).
func marshal(v any) ([]byte, error) {
	if raw, ok := v.(json.RawMessage); ok {
		return raw, nil
	}
	return strictjson.Encode(v)
}

// toTree converts v (any JSON-encodable value) to maps, slices, strings,
// bools, nil and json.Number, for redaction and message normalization.
func toTree(v any) (any, error) {
	raw, err := marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return tree, nil
}
