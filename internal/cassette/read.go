package cassette

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"os"
	"slices"
	"strings"
)

// File is a verified cassette.
type File struct {
	Version int
	Kind    string
	Policy  json.RawMessage // canonical
	Frames  []Frame         // the body frames, between the header and the trailer
	Total   int             // every frame, header and trailer included
	Last    string          // the hash of the last body frame (the trailer's last)
}

// Counts returns the number of frames by type, header and trailer included.
func (f *File) Counts() map[string]int {
	c := map[string]int{}
	if f.Total > 0 || f.Kind != "" {
		c[TypeHeader] = 1
	}
	for _, fr := range f.Frames {
		c[fr.Type]++
	}
	if f.Total > 0 {
		c[TypeComplete] = 1
	}
	return c
}

// Error is why a file is not a valid cassette. It names the structural
// reason and the frame; it never quotes a line, a body or an absolute path.
type Error struct {
	Name   string // the file as the caller named it (see Display)
	Frame  int    // the frame's position (its expected seq; line Frame+1); -1: the whole file
	Reason string
}

func (e *Error) Error() string {
	if e.Frame < 0 {
		return fmt.Sprintf("cassette: %s: %s", e.Name, e.Reason)
	}
	return fmt.Sprintf("cassette: %s:%d: frame %d: %s", e.Name, e.Frame+1, e.Frame, e.Reason)
}

// MaxFileBytes is the largest cassette ReadFile reads: 256 MiB.
const MaxFileBytes = 256 << 20

// ReadFile reads and verifies the cassette at path (see Verify).
func ReadFile(path string, kinds ...Kind) (*File, error) {
	if err := CheckPath(path); err != nil {
		return &File{}, err
	}
	data, err := safefile.Read(path, MaxFileBytes)
	if err != nil {
		return &File{}, &Error{Name: Display(path), Frame: -1, Reason: "cannot read: " + strings.TrimPrefix(errReason(err), "safefile: "+path+": ")}
	}
	return Verify(data, Display(path), kinds...)
}

// errReason is an OS error without the path it carries.
func errReason(err error) string {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// Verify checks a whole cassette before anything may be replayed from it:
// every frame canonical with a matching hash, seq contiguous from 0, each
// prev the hash of the frame before, a header of this Format and Version
// whose kind is one of kinds, body frames that pass their Kind, and a
// complete trailer whose frame count and last hash agree, with nothing
// after it. On error it also returns the part verified before the defect
// (for inspect); never replay from that.
func Verify(data []byte, name string, kinds ...Kind) (*File, error) {
	v := verifier{name: name, kinds: kinds, f: &File{}}
	err := v.run(data)
	return v.f, err
}

type verifier struct {
	name  string
	kinds []Kind
	kind  *Kind
	f     *File
	prev  string
	done  bool
}

func (v *verifier) errorf(seq int, format string, args ...any) error {
	return &Error{Name: v.name, Frame: seq, Reason: fmt.Sprintf(format, args...)}
}

// run walks the lines; a file is lines each ending in "\n" (read whole
// rather than scanned, so that a missing last newline is seen as the
// truncation it is).
func (v *verifier) run(data []byte) error {
	if len(data) == 0 {
		return v.errorf(-1, "empty file: no header frame")
	}
	for seq := 0; len(data) > 0; seq++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			return v.errorf(seq, "truncated: the last line has no end of line")
		}
		if v.done {
			return v.errorf(seq, "a frame after the complete trailer")
		}
		if err := v.frame(seq, data[:i]); err != nil {
			return err
		}
		data = data[i+1:]
	}
	if !v.done {
		return v.errorf(len(v.f.Frames)+1, "missing complete trailer (truncated, or a recording that never finished)")
	}
	return v.check()
}

func (v *verifier) frame(seq int, line []byte) error {
	fr, err := ParseFrame(line)
	if err != nil {
		return v.errorf(seq, "%v", err)
	}
	if fr.Seq != seq {
		return v.errorf(seq, "seq is %d, want %d (a frame is missing, duplicated or out of order)", fr.Seq, seq)
	}
	if fr.Prev != v.prev {
		if seq == 0 {
			return v.errorf(seq, "$.prev: the header's prev must be empty")
		}
		return v.errorf(seq, "$.prev: does not match the hash of frame %d (broken chain)", seq-1)
	}
	v.prev = fr.Hash
	switch {
	case seq == 0:
		return v.header(fr)
	case fr.Type == TypeHeader:
		return v.errorf(seq, "a second header")
	case fr.Type == TypeComplete:
		return v.complete(fr)
	}
	return v.body(fr)
}

type header struct {
	Format  *string          `json:"format"`
	Version *json.Number     `json:"version"`
	Kind    *string          `json:"kind"`
	Policy  *json.RawMessage `json:"policy"`
}

func (v *verifier) header(fr Frame) error {
	if fr.Type != TypeHeader {
		return v.errorf(0, "the first frame must be a header")
	}
	var h header
	if err := Decode(fr.Body, &h); err != nil {
		return v.errorf(0, "$.body%s", strings.TrimPrefix(err.Error(), "$"))
	}
	switch {
	case h.Format == nil || h.Version == nil || h.Kind == nil || h.Policy == nil:
		return v.errorf(0, "$.body: the header needs format, version, kind and policy")
	case *h.Format != Format:
		return v.errorf(0, "$.body.format: not an %s file", Format)
	case h.Version.String() != fmt.Sprint(Version):
		return v.errorf(0, "$.body.version: unsupported version %s (this build reads version %d)", safeNumber(*h.Version), Version)
	}
	v.f.Version = Version
	for i := range v.kinds {
		if v.kinds[i].Name == *h.Kind {
			v.kind = &v.kinds[i]
		}
	}
	if v.kind == nil {
		return v.errorf(0, "$.body.kind: unknown kind (want one of: %s)", strings.Join(kindNames(v.kinds), ", "))
	}
	v.f.Kind = v.kind.Name
	v.f.Policy = *h.Policy
	if err := v.kind.policy(*h.Policy); err != nil {
		return v.errorf(0, "$.body.policy%s", strings.TrimPrefix(err.Error(), "$"))
	}
	return nil
}

// safeNumber shows a short number, or says it is long.
func safeNumber(n json.Number) string {
	if len(n) > 20 {
		return "(a long number)"
	}
	return n.String()
}

func kindNames(kinds []Kind) []string {
	var names []string
	for _, k := range kinds {
		names = append(names, k.Name)
	}
	return names
}

func (k *Kind) policy(raw json.RawMessage) error {
	if k.Policy == nil {
		if string(raw) != "{}" {
			return fmt.Errorf("$: want {}")
		}
		return nil
	}
	return k.Policy(raw)
}

func (v *verifier) body(fr Frame) error {
	if !slices.Contains(v.kind.Types, fr.Type) {
		return v.errorf(fr.Seq, "$.type: not a frame type of a %s cassette", v.kind.Name)
	}
	if v.kind.Body != nil {
		if err := v.kind.Body(fr.Type, fr.Body); err != nil {
			return v.errorf(fr.Seq, "$.body%s", strings.TrimPrefix(err.Error(), "$"))
		}
	}
	v.f.Frames = append(v.f.Frames, fr)
	return nil
}

type trailer struct {
	Frames *int    `json:"frames"`
	Last   *string `json:"last"`
}

func (v *verifier) complete(fr Frame) error {
	var t trailer
	if err := Decode(fr.Body, &t); err != nil {
		return v.errorf(fr.Seq, "$.body%s", strings.TrimPrefix(err.Error(), "$"))
	}
	switch {
	case t.Frames == nil || t.Last == nil:
		return v.errorf(fr.Seq, "$.body: the trailer needs frames and last")
	case *t.Frames != fr.Seq+1:
		return v.errorf(fr.Seq, "$.body.frames: the trailer counts %d frames, the file has %d", *t.Frames, fr.Seq+1)
	case *t.Last != fr.Prev:
		return v.errorf(fr.Seq, "$.body.last: does not match the hash of frame %d", fr.Seq-1)
	}
	v.done = true
	v.f.Total = fr.Seq + 1
	v.f.Last = *t.Last
	return nil
}

// check runs the kind's rules between frames.
func (v *verifier) check() error {
	if v.kind.Check == nil {
		return nil
	}
	err := v.kind.Check(v.f.Policy, v.f.Frames)
	if fe, ok := err.(*FrameError); ok {
		return v.errorf(fe.Seq, "%s", fe.Reason)
	}
	if err != nil {
		return v.errorf(-1, "%v", err)
	}
	return nil
}
