package cassette

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// Kind is what a kind package (cassette/tool, cassette/subagent) supplies:
// its name in the header, its body frame types and the closed schemas of its
// policy and bodies. The protocol checks the envelope, the chain and the
// trailer; the Kind checks what is inside.
type Kind struct {
	// Name is the header's kind ("tool", "subagent").
	Name string
	// Types are the body frame types, in the order inspect lists them.
	Types []string
	// Policy validates the header's policy object (canonical, duplicate
	// free). Errors start with a path relative to the policy ("$.include:
	// …") and must not quote values. nil: the policy must be {}.
	Policy func(policy json.RawMessage) error
	// Body validates the body of one frame of type typ (one of Types), as
	// Policy does. nil: any object.
	Body func(typ string, body json.RawMessage) error
	// Check validates the rules between body frames (pairing, ordinals) on
	// a file whose frames each passed Body; it returns a *FrameError to
	// name the frame at fault. nil: none.
	Check func(policy json.RawMessage, frames []Frame) error
	// Stats returns the kind's metadata counts for inspect ("calls",
	// "tools"), never content. nil: none.
	Stats func(policy json.RawMessage, frames []Frame) []Stat
}

// Stat is one named count inspect shows.
type Stat struct {
	Name  string `json:"name"`
	Value int    `json:"value"`
}

// FrameError is a defect of one frame found by a Kind's Check.
type FrameError struct {
	Seq    int
	Reason string
}

func (e *FrameError) Error() string { return fmt.Sprintf("frame %d: %s", e.Seq, e.Reason) }

// Decode decodes a canonical body or policy strictly into v: unknown
// members are refused and numbers decode losslessly into json.Number or
// json.RawMessage fields. Duplicate keys never reach it (the frame parser
// refuses them). Errors start with "$" and name the member, not its value.
func Decode(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return fmt.Errorf("$.%s: want %s, got %s", te.Field, te.Type, te.Value)
		}
		msg := strings.TrimPrefix(err.Error(), "json: ")
		if f, ok := strings.CutPrefix(msg, "unknown field "); ok {
			return fmt.Errorf("$.%s: unknown member", strings.Trim(f, `"`))
		}
		return fmt.Errorf("$: %s", msg)
	}
	return nil
}

// Display is how messages name a file: as given when relative, by its base
// name when absolute (diagnostics never carry an absolute path).
func Display(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Base(path)
	}
	return path
}

// Members splits a canonical JSON object (a body or a policy) into its
// members' canonical bytes, in one fast pass, so a Kind can check a closed
// schema without decoding large values (a tool's result) through
// encoding/json.
func Members(obj json.RawMessage) (map[string]json.RawMessage, error) {
	var buf [16]member
	top, err := scanCanonical(obj, buf[:])
	if err != nil {
		return nil, fmt.Errorf("$: %w", err)
	}
	if len(obj) == 0 || obj[0] != '{' {
		return nil, errors.New("$: want an object")
	}
	m := make(map[string]json.RawMessage, len(top))
	for _, t := range top {
		m[t.key] = obj[t.off:t.end]
	}
	return m, nil
}

// CheckMembers reports the first missing required member, else an unknown
// one ("$.x: missing", "$.y: unknown member").
func CheckMembers(m map[string]json.RawMessage, required, optional []string) error {
	key, missing := strictjson.KeyProblem(m, required, optional)
	switch {
	case key == "":
		return nil
	case missing:
		return fmt.Errorf("$.%s: missing", key)
	}
	return fmt.Errorf("$.%s: unknown member (allowed: %s)", key, strings.Join(append(required[:len(required):len(required)], optional...), ", "))
}
