package httplog

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// member is one member of a JSON object with its value's exact bytes.
type member struct {
	Key string
	Raw []byte
}

// objectMembers returns the members of the JSON object raw in document
// order, each value verbatim (sharing raw's bytes). ok is false when raw
// is not one JSON object.
func objectMembers(raw []byte) (ms []member, ok bool) {
	i, ok := open(raw, '{')
	for ok && raw[i] != '}' {
		k := strictjson.StringEnd(raw, i)
		v := strictjson.Space(raw, strictjson.Space(raw, k)+1) // past the colon
		end := strictjson.ValueEnd(raw, v)
		ms = append(ms, member{Key: strictjson.Unquote(raw[i:k]), Raw: raw[v:end]})
		i = next(raw, end)
	}
	return ms, ok
}

// arrayElements returns the elements of the JSON array raw, each verbatim
// (sharing raw's bytes).
func arrayElements(raw []byte) (es [][]byte, ok bool) {
	i, ok := open(raw, '[')
	for ok && raw[i] != ']' {
		end := strictjson.ValueEnd(raw, i)
		es = append(es, raw[i:end])
		i = next(raw, end)
	}
	return es, ok
}

// open returns where the first member or element of raw starts, when raw
// is one valid JSON value that opens with bracket.
func open(raw []byte, bracket byte) (int, bool) {
	i := strictjson.Space(raw, 0)
	if i == len(raw) || raw[i] != bracket || !json.Valid(raw) {
		return 0, false
	}
	return strictjson.Space(raw, i+1), true
}

// next steps past the white space and comma after a member or element
// that ends at i.
func next(raw []byte, i int) int {
	if i = strictjson.Space(raw, i); raw[i] == ',' {
		i = strictjson.Space(raw, i+1)
	}
	return i
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
func quote(s string) []byte { return strictjson.AppendQuote(nil, []byte(s)) }

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
	return len(raw) > 0 && json.Valid(raw) && strictjson.Check(raw, "$") == nil &&
		bytes.Equal(strictjson.AppendCanonical(nil, raw, nil), raw)
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
