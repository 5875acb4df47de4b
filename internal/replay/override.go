package replay

import (
	"fmt"
	"io"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// Override is an authored change to the primary session's derived script
// (replay.override.json, docs/format.md, "Overrides"). Its JSON form is either a bare array of
// entries, which replaces the script, or {"patches":[{"at":i,"entry":{…}}]}.
type Override struct {
	// Script, when non-nil, replaces the derived script (the bare-array form).
	Script Script
	// Patches apply in order when Script is nil: a patch at i < len replaces
	// entry i, at i == len appends, anything else is an error.
	Patches []Patch

	name string // the file, for errors; "" when built in Go
}

// Patch replaces or appends one entry.
type Patch struct {
	At    int
	Entry Entry

	line int // the line of the patch in its file; 0 when built in Go
}

// DecodeOverride decodes an override strictly (exact key sets, known chunk
// types, the entry rules). Errors read "name:line: $.patches[i].Path: what".
func DecodeOverride(r io.Reader, name string) (*Override, error) {
	d, root, err := readDoc(r, name)
	if err == nil {
		var o *Override
		if o, err = d.override(root); err == nil {
			return o, nil
		}
	}
	return nil, fmt.Errorf("llmreplay: decode override: %w", err)
}

func (d *doc) override(v strictjson.Value) (*Override, error) {
	o := &Override{name: d.Name}
	var err error
	if v.Raw[0] == '[' {
		o.Script, err = d.script(v)
		return o, err
	}
	m, err := d.Members(v, "an override (a bare array of entries or a patches)")
	if err == nil {
		err = d.CheckMembers(v, m, []string{"patches"}, nil)
	}
	if err != nil {
		return nil, err
	}
	els, err := d.Elements(m["patches"], "patches")
	if err != nil {
		return nil, err
	}
	o.Patches = []Patch{}
	for _, el := range els {
		p, err := d.patch(el)
		if err != nil {
			return nil, err
		}
		o.Patches = append(o.Patches, p)
	}
	return o, nil
}

// patch decodes {"at":i,"entry":{…}}.
func (d *doc) patch(v strictjson.Value) (Patch, error) {
	p := Patch{line: d.Line(v.Off)}
	m, err := d.Members(v, "a patch")
	if err == nil {
		err = d.CheckMembers(v, m, []string{"at", "entry"}, nil)
	}
	if err == nil {
		p.At, err = d.Int(m["at"])
	}
	if err == nil && p.At < 0 {
		err = d.Errorf(m["at"].Off, m["at"].Path, "%d: entries count from 0", p.At)
	}
	if err == nil {
		p.Entry, err = d.entry(m["entry"])
	}
	return p, err
}

// Apply returns s with the override applied; s itself is not modified.
func (o *Override) Apply(s Script) (Script, error) {
	if o.Script != nil {
		return append(Script{}, o.Script...), nil
	}
	out := append(Script{}, s...)
	for i, p := range o.Patches {
		switch {
		case p.At >= 0 && p.At < len(out):
			out[p.At] = p.Entry
		case p.At == len(out):
			out = append(out, p.Entry)
		default:
			return nil, fmt.Errorf("llmreplay: apply override: %s: at %d is past the end of the script (%d entries; at %d appends)",
				o.where(i), p.At, len(out), len(out))
		}
	}
	return out, nil
}

// where names patch i: "file:line: $.patches[i]", or "patch i".
func (o *Override) where(i int) string {
	if o.name == "" || o.Patches[i].line == 0 {
		return fmt.Sprintf("patch %d", i)
	}
	return fmt.Sprintf("%s:%d: $.patches[%d]", o.name, o.Patches[i].line, i)
}

// replaces reports whether the override replaces entry i of the derived
// script.
func (o *Override) replaces(i int) bool {
	if o.Script != nil {
		return true
	}
	for _, p := range o.Patches {
		if p.At == i {
			return true
		}
	}
	return false
}
