package cassette

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// Format and Version are the header's format name and the one protocol
// version this build reads and writes.
const (
	Format  = "acpsnap-cassette"
	Version = 1
)

// The protocol's own frame types; a Kind adds its body frame types.
const (
	TypeHeader   = "header"
	TypeComplete = "complete"
)

// hashPrefix starts every hash: "sha256:" and 64 lowercase hex digits.
const hashPrefix = "sha256:"

// Frame is one line of a cassette. Body is canonical JSON (see Canonical).
type Frame struct {
	Seq  int
	Prev string // the previous frame's Hash; "" for the header
	Type string
	Body json.RawMessage
	Hash string // "sha256:" + hex SHA-256 of the frame's canonical JSON without hash
}

// envelopeKeys are a frame's members, in canonical order.
var envelopeKeys = []string{"body", "hash", "prev", "seq", "type"}

// Marshal returns the frame's line (canonical JSON, no newline).
func (f Frame) Marshal() []byte {
	b := make([]byte, 0, len(f.Body)+len(f.Prev)+len(f.Hash)+64)
	b = append(b, `{"body":`...)
	b = append(b, f.Body...)
	b = append(b, `,"hash":`...)
	b = strconv.AppendQuote(b, f.Hash)
	return f.appendTail(b)
}

// appendTail appends the members after hash, closing the object.
func (f Frame) appendTail(b []byte) []byte {
	b = append(b, `,"prev":`...)
	b = strconv.AppendQuote(b, f.Prev)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, int64(f.Seq), 10)
	b = append(b, `,"type":`...)
	b = strconv.AppendQuote(b, f.Type)
	return append(b, '}')
}

// Sum returns the hash the frame must carry: SHA-256 of its canonical JSON
// without the hash member.
func (f Frame) Sum() string {
	h := sha256.New()
	h.Write([]byte(`{"body":`))
	h.Write(f.Body)
	h.Write(f.appendTail(nil))
	return hashPrefix + hex.EncodeToString(h.Sum(nil))
}

// ParseFrame parses one line (without its newline) into a frame. The line
// must be exactly the canonical form of the frame (so that parsing and
// Marshal round-trip byte for byte), with exactly the envelope members and a
// hash that matches. It checks one frame alone: seq, prev and body schemas
// are the Reader's business. Errors never quote the line.
func ParseFrame(line []byte) (Frame, error) {
	var buf [8]member
	top, err := scanCanonical(line, buf[:])
	if err != nil {
		return Frame{}, err
	}
	if len(line) == 0 || line[0] != '{' {
		return Frame{}, errors.New("$: a frame is a JSON object")
	}
	m := map[string]member{}
	for _, t := range top {
		m[t.key] = t
	}
	if key, missing := strictjson.KeyProblem(m, envelopeKeys, nil); key != "" {
		if missing {
			return Frame{}, fmt.Errorf("$.%s: missing", key)
		}
		return Frame{}, fmt.Errorf("$: unknown member (allowed: %s)", strings.Join(envelopeKeys, ", "))
	}
	return frameOf(line, m)
}

func frameOf(line []byte, m map[string]member) (Frame, error) {
	raw := func(k string) []byte { return line[m[k].off:m[k].end] }
	f := Frame{Body: json.RawMessage(raw("body"))}
	var err error
	if f.Seq, err = seqOf(raw("seq")); err != nil {
		return Frame{}, err
	}
	if f.Type, err = stringOf(raw("type"), "$.type"); err != nil {
		return Frame{}, err
	}
	if !validType(f.Type) {
		return Frame{}, errors.New("$.type: not a frame type name")
	}
	if f.Prev, err = hashOf(raw("prev"), "$.prev", true); err != nil {
		return Frame{}, err
	}
	if f.Hash, err = hashOf(raw("hash"), "$.hash", false); err != nil {
		return Frame{}, err
	}
	if f.Body[0] != '{' {
		return Frame{}, errors.New("$.body: want an object")
	}
	if f.Sum() != f.Hash {
		return Frame{}, errors.New("$.hash: does not match the frame's content (damaged or edited)")
	}
	return f, nil
}

func seqOf(raw []byte) (int, error) {
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 0 {
		return 0, errors.New("$.seq: want a non-negative integer")
	}
	return n, nil
}

func stringOf(raw []byte, path string) (string, error) {
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", fmt.Errorf("%s: want a string", path)
	}
	return s, nil
}

// hashOf decodes a "sha256:<64 hex>" string ("" allowed when empty is).
func hashOf(raw []byte, path string, empty bool) (string, error) {
	s, err := stringOf(raw, path)
	if err != nil {
		return "", err
	}
	if s == "" && empty {
		return s, nil
	}
	if !validHash(s) {
		return "", fmt.Errorf("%s: want %q and 64 lowercase hex digits", path, hashPrefix)
	}
	return s, nil
}

func validHash(s string) bool {
	hex, ok := strings.CutPrefix(s, hashPrefix)
	if !ok || len(hex) != 64 {
		return false
	}
	for _, c := range []byte(hex) {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// validType reports whether t is a frame type name: lowercase letters,
// digits, '/', '_' and '-', starting with a letter.
func validType(t string) bool {
	if t == "" || t[0] < 'a' || t[0] > 'z' {
		return false
	}
	for _, c := range []byte(t) {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '/' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}
