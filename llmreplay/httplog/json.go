package httplog

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/acpsnap/acpsnap/internal/jsonl"
)

// member is one member of a JSON object with its value's exact bytes.
type member struct {
	Key string
	Raw []byte
}

// objectMembers returns the members of the JSON object raw in document
// order, each value verbatim. ok is false when raw is not an object.
func objectMembers(raw []byte) (ms []member, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		ms = append(ms, member{Key: tok.(string), Raw: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	return ms, true
}

// arrayElements returns the elements of the JSON array raw, each verbatim.
func arrayElements(raw []byte) (es [][]byte, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, false
	}
	for dec.More() {
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		es = append(es, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	return es, true
}

// buildObject writes members compactly in order: the inverse of
// objectMembers for a compact object.
func buildObject(ms []member) []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(quote(m.Key))
		b.WriteByte(':')
		b.Write(m.Raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// buildArray writes elements compactly in order.
func buildArray(es [][]byte) []byte {
	return append(append([]byte{'['}, bytes.Join(es, []byte{','})...), ']')
}

// quote encodes s as a JSON string without HTML escaping.
func quote(s string) []byte {
	b, _ := jsonl.Value(s) // a string always encodes
	return b
}

// embeddable reports whether raw can sit verbatim inside one log line: one
// valid JSON value without line breaks.
func embeddable(raw []byte) bool {
	return len(raw) > 0 && json.Valid(raw) && bytes.IndexAny(raw, "\r\n") < 0 &&
		len(bytes.TrimSpace(raw)) == len(raw)
}

// payload returns the log members that hold raw under name: name itself
// for embeddable JSON, name+"Text" for other UTF-8 text, name+"Base64"
// for anything else (text: never as JSON). Nothing for a nil payload.
func payload(name string, raw []byte, text bool) []member {
	switch {
	case raw == nil:
		return nil
	case !text && embeddable(raw):
		return []member{{name, raw}}
	case jsonValidUTF8(raw):
		return []member{{name + "Text", quote(string(raw))}}
	}
	b, _ := json.Marshal(raw) // []byte encodes as base64
	return []member{{name + "Base64", b}}
}

// canonical reports whether raw is JSON in the form a log's normalization
// writes it: compact, object keys sorted, strings escaped as encoding/json
// does without HTML escaping.
func canonical(raw []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return false
	}
	b, err := jsonl.Value(v)
	return err == nil && bytes.Equal(b, raw)
}

func jsonValidUTF8(b []byte) bool {
	return bytes.Equal([]byte(string(bytes.ToValidUTF8(b, nil))), b)
}

// readPayload is the inverse of payload over the members m of one log line.
func readPayload(name string, m map[string]json.RawMessage) ([]byte, error) {
	if v, ok := m[name]; ok {
		return append([]byte(nil), v...), nil
	}
	if v, ok := m[name+"Text"]; ok {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return nil, fmt.Errorf("%sText: want a string", name)
		}
		return []byte(s), nil
	}
	if v, ok := m[name+"Base64"]; ok {
		var b []byte
		if err := json.Unmarshal(v, &b); err != nil {
			return nil, fmt.Errorf("%sBase64: want a base64 string", name)
		}
		return b, nil
	}
	return nil, nil
}
