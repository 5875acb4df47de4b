package proxy

import (
	"bytes"
	"fmt"
	"os"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// Overrides replace exchanges by call number; see the package doc for
// the file format.
type Overrides struct {
	Name    string // the file the overrides came from, for errors
	Patches []Patch
}

// Patch replaces one exchange. Exactly one of Status, DisconnectAfter and
// HangAfter is set (the other two are 0 and -1).
type Patch struct {
	Call int // 1-based: the recorded call (Replay) or the arriving request (Record)
	Line int // where the patch starts in its file

	Status int               // answer this HTTP status instead; 0: not this kind
	Header map[string]string // with Status: response headers
	Body   []byte            // with Status: the response body; nil: a dialect error body

	DisconnectAfter int // break the connection after this many events; -1: not this kind
	HangAfter       int // stall after this many events until the client gives up; -1: not this kind
}

// LoadOverrides reads and strictly decodes an override file.
func LoadOverrides(path string) (*Overrides, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("proxy: overrides: %w", err)
	}
	return ParseOverrides(b, path)
}

// ParseOverrides strictly decodes overrides from data; name prefixes errors
// ("name:line: $.patches[0].status: …").
func ParseOverrides(data []byte, name string) (*Overrides, error) {
	d, root, err := strictjson.Parse(data, name, 0, "$")
	if err != nil {
		return nil, fmt.Errorf("proxy: overrides: %w", err)
	}
	o, err := decodeOverrides(d, root)
	if err != nil {
		return nil, fmt.Errorf("proxy: overrides: %w", err)
	}
	o.Name = name
	return o, nil
}

func decodeOverrides(d *strictjson.Doc, root strictjson.Value) (*Overrides, error) {
	m, err := d.Members(root, "an overrides")
	if err != nil {
		return nil, err
	}
	if err := d.CheckMembers(root, m, []string{"patches"}, nil); err != nil {
		return nil, err
	}
	vs, err := d.Elements(m["patches"], "patches")
	if err != nil {
		return nil, err
	}
	o := &Overrides{}
	seen := map[int]bool{}
	for _, v := range vs {
		pt, err := decodePatch(d, v)
		if err != nil {
			return nil, err
		}
		if seen[pt.Call] {
			return nil, d.PathErrorf(v.Path+".call", "call %d is patched twice", pt.Call)
		}
		seen[pt.Call] = true
		o.Patches = append(o.Patches, pt)
	}
	return o, nil
}

var patchKinds = []string{"status", "disconnectAfter", "hangAfter"}

func decodePatch(d *strictjson.Doc, v strictjson.Value) (Patch, error) {
	pt := Patch{DisconnectAfter: -1, HangAfter: -1, Line: d.Line(v.Off)}
	m, err := d.Members(v, "a patch")
	if err != nil {
		return pt, err
	}
	var kind string
	for _, k := range patchKinds {
		if _, ok := m[k]; ok && kind != "" {
			return pt, d.PathErrorf(v.Path+"."+k, "a patch has one of status, disconnectAfter, hangAfter (this one also has %s)", kind)
		} else if ok {
			kind = k
		}
	}
	if kind == "" {
		return pt, d.Errorf(v.Off, v.Path, "a patch needs one of status, disconnectAfter, hangAfter")
	}
	optional := []string(nil)
	if kind == "status" {
		optional = []string{"headers", "body"}
	}
	if err := d.CheckMembers(v, m, []string{"call", kind}, optional); err != nil {
		return pt, err
	}
	if pt.Call, err = d.Int(m["call"]); err != nil {
		return pt, err
	}
	if pt.Call < 1 {
		return pt, d.PathErrorf(v.Path+".call", "is %d, want a call number from 1", pt.Call)
	}
	n, err := d.Int(m[kind])
	if err != nil {
		return pt, err
	}
	switch kind {
	case "status":
		if n < 100 || n > 599 {
			return pt, d.PathErrorf(v.Path+".status", "is %d, want an HTTP status", n)
		}
		pt.Status = n
		return pt, decodeStatusParts(d, m, &pt)
	case "disconnectAfter":
		pt.DisconnectAfter = n
	case "hangAfter":
		pt.HangAfter = n
	}
	if n < 0 {
		return pt, d.PathErrorf(v.Path+"."+kind, "is %d, want an event count from 0", n)
	}
	return pt, nil
}

func decodeStatusParts(d *strictjson.Doc, m map[string]strictjson.Value, pt *Patch) error {
	if b, ok := m["body"]; ok {
		pt.Body = bytes.Clone(b.Raw)
	}
	h, ok := m["headers"]
	if !ok {
		return nil
	}
	hm, err := d.Members(h, "a headers")
	if err != nil {
		return err
	}
	pt.Header = map[string]string{}
	for k, v := range hm {
		if pt.Header[k], err = d.Str(v); err != nil {
			return err
		}
	}
	return nil
}

// find returns the patch of call, or nil.
func (o *Overrides) find(call int) *Patch {
	if o == nil {
		return nil
	}
	for i := range o.Patches {
		if o.Patches[i].Call == call {
			return &o.Patches[i]
		}
	}
	return nil
}

// check refuses, in Replay, a patch of a call the recording does not have.
func (o *Overrides) check(mode Mode, calls int) error {
	if o == nil || mode != Replay {
		return nil
	}
	for _, pt := range o.Patches {
		if pt.Call > calls {
			return fmt.Errorf("proxy: overrides: %s:%d: call %d: the recording has %d calls", o.Name, pt.Line, pt.Call, calls)
		}
	}
	return nil
}

// after is the event count after which the patch cuts the stream; -1: none.
func (pt *Patch) after() int {
	switch {
	case pt == nil:
		return -1
	case pt.DisconnectAfter >= 0:
		return pt.DisconnectAfter
	}
	return pt.HangAfter
}
