package replay

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"regexp"

	"github.com/acpsnap/acpsnap/internal/strictjson"
	"github.com/acpsnap/acpsnap/model"
)

// Entry kinds (docs/format.md, "Replay entries").
const (
	KindChunks = "chunks" // serve Chunks; the last one is the only finish
	KindThrow  = "throw"  // serve Chunks (a prefix without finish), then fail with Code and Message
	KindHang   = "hang"   // serve a partial chunk, create ReadyFile, wait for cancellation
)

// Entry is the model's behaviour for one model call. Which fields are
// meaningful depends on Kind; its JSON form carries exactly those keys:
//
//	{"kind":"chunks","chunks":[…]}
//	{"kind":"throw","chunks":[…],"message":"…","code":"…","accepted"?:bool}
//	{"kind":"hang","readyFile"?:"…"}
type Entry struct {
	Kind      string
	Chunks    []model.Chunk
	Message   string // throw: the provider error message
	Code      string // throw: the provider error code (RATE_LIMIT, AUTH, …)
	Accepted  bool   // throw: the provider accepted the request (HTTP 200) and failed mid-stream
	ReadyFile string // hang: a file to create, relative to the cwd, once the stream hangs
	// Match (a model file only: the Server's) makes the entry answer the
	// first request whose body it matches, whatever its position and
	// arrival: a side call in parallel with the turn (a title, a summary).
	// The run's folders in it ({{cwd}}, …) stand for their live values,
	// quoted (Server.SetRoots). nil: the entry answers by position among
	// the entries without one. Replay needs none: a recorded call is found
	// by fingerprint (HTTP) or is next in its session (native).
	Match *regexp.Regexp
}

// Script is the ordered list of model calls of one session. Its JSON form is
// an array of entries.
type Script []Entry

// entryKeys lists, per kind, the required and the optional keys.
var entryKeys = map[string]struct{ required, optional []string }{
	KindChunks: {[]string{"kind", "chunks"}, nil},
	KindThrow:  {[]string{"kind", "chunks", "message", "code"}, []string{"accepted"}},
	KindHang:   {[]string{"kind"}, []string{"readyFile"}},
}

// DecodeScript decodes a script (a JSON array of entries) strictly: exact key
// sets per kind, known chunk types, and the entry rules of the package
// documentation. Errors read "name:line: $[i].Path: what".
func DecodeScript(r io.Reader, name string) (Script, error) {
	d, root, err := readDoc(r, name)
	if err == nil {
		var s Script
		if s, err = d.script(root); err == nil {
			return s, nil
		}
	}
	return nil, fmt.Errorf("llmreplay: decode script: %w", err)
}

// UnmarshalJSON decodes strictly, like DecodeScript; errors name the line
// within b.
func (s *Script) UnmarshalJSON(b []byte) error {
	d, root, err := readDoc(bytes.NewReader(b), "script")
	if err == nil {
		var out Script
		if out, err = d.script(root); err == nil {
			*s = out
		}
	}
	return err
}

// script decodes the array v of entries.
func (d *doc) script(v strictjson.Value) (Script, error) {
	els, err := d.Elements(v, "entries")
	if err != nil {
		return nil, err
	}
	s := Script{}
	for _, el := range els {
		e, err := d.entry(el)
		if err != nil {
			return nil, err
		}
		s = append(s, e)
	}
	return s, nil
}

// entry decodes and validates one entry.
func (d *doc) entry(v strictjson.Value) (Entry, error) {
	m, err := d.Members(v, "an entry")
	if err != nil {
		return Entry{}, err
	}
	kv, ok := m["kind"]
	if !ok {
		return Entry{}, d.Errorf(v.Off, v.Path+".kind", "missing")
	}
	var e Entry
	if e.Kind, err = d.Str(kv); err != nil {
		return Entry{}, err
	}
	keys, ok := entryKeys[e.Kind]
	if !ok {
		return Entry{}, d.Errorf(kv.Off, kv.Path, "unknown entry kind %q (want chunks, throw or hang)", e.Kind)
	}
	optional := keys.optional
	if d.isModel {
		optional = append(append([]string{}, optional...), "match")
	} else if mv, ok := m["match"]; ok {
		return Entry{}, d.Errorf(mv.Off, mv.Path, "match is for a model file (model.json, which the scripted server serves): replay answers each call with its recorded one (by fingerprint over HTTP; natively in the order of its session, whose calls never overlap)")
	}
	if err := d.CheckMembers(v, m, keys.required, optional); err != nil {
		return Entry{}, err
	}
	if err := d.entryFields(m, &e); err != nil {
		return Entry{}, err
	}
	if mv, ok := m["match"]; ok {
		re, err := d.Str(mv)
		if err != nil {
			return Entry{}, err
		}
		if re == "" {
			return Entry{}, d.Errorf(mv.Off, mv.Path, "empty match: want a regular expression (RE2) that the request body must match")
		}
		if e.Match, err = regexp.Compile(re); err != nil {
			return Entry{}, d.Errorf(mv.Off, mv.Path, "match %q: %v", re, err)
		}
	}
	return e, nil
}

// entryFields decodes the members other than kind into e and checks the
// rules each kind imposes on them.
func (d *doc) entryFields(m map[string]strictjson.Value, e *Entry) error {
	var err error
	strs := []struct {
		key string
		dst *string
	}{{"message", &e.Message}, {"code", &e.Code}, {"readyFile", &e.ReadyFile}}
	for _, f := range strs {
		if v, ok := m[f.key]; ok && err == nil {
			*f.dst, err = d.Str(v)
		}
	}
	if v, ok := m["accepted"]; ok && err == nil {
		e.Accepted, err = d.Bool(v)
	}
	if v, ok := m["chunks"]; ok && err == nil {
		err = d.entryChunks(v, e)
	}
	if err != nil {
		return err
	}
	if v, ok := m["code"]; ok && e.Code == "" {
		return d.Errorf(v.Off, v.Path, "empty code: a throw needs a provider error code (RATE_LIMIT, UNAVAILABLE, AUTH, …)")
	}
	if v, ok := m["readyFile"]; ok && !filepath.IsLocal(e.ReadyFile) {
		return d.Errorf(v.Off, v.Path, "%q is not a local relative path", e.ReadyFile)
	}
	return nil
}

// entryChunks decodes the chunks of e and checks where finish chunks may
// stand: a chunks entry ends with its only finish, a throw prefix has none.
func (d *doc) entryChunks(v strictjson.Value, e *Entry) error {
	els, err := d.Elements(v, "chunks")
	if err != nil {
		return err
	}
	e.Chunks = []model.Chunk{}
	for i, el := range els {
		c, err := d.chunk(el)
		if err != nil {
			return err
		}
		if msg := finishRule(e.Kind, c, i == len(els)-1); msg != "" {
			return d.Errorf(el.Off, el.Path, "%s", msg)
		}
		e.Chunks = append(e.Chunks, c)
	}
	if e.Kind == KindChunks && len(els) == 0 {
		return d.Errorf(v.Off, v.Path, "a chunks entry needs at least its finish chunk")
	}
	return nil
}

// finishRule returns what is wrong with chunk c of an entry of the given
// kind, or "".
func finishRule(kind string, c model.Chunk, last bool) string {
	switch {
	case kind == KindThrow && c.Type == model.Finish:
		return "a throw prefix has no finish chunk: the throw itself ends the call"
	case kind == KindChunks && last && c.Type != model.Finish:
		return fmt.Sprintf("a chunks entry ends with a finish chunk, not %q", c.Type)
	case kind == KindChunks && !last && c.Type == model.Finish:
		return "finish before the last chunk: one entry is one model call; split it"
	case kind == KindChunks && c.Type == model.Finish && c.Reason == model.FinishError && c.Code != "":
		return "a finish with reason error and a code is a provider error: write it as a throw entry"
	}
	return ""
}

// MarshalJSON writes exactly the keys of e.Kind.
func (e Entry) MarshalJSON() ([]byte, error) {
	chunks := e.Chunks
	if chunks == nil {
		chunks = []model.Chunk{}
	}
	var v any
	switch e.Kind {
	case KindChunks:
		v = struct {
			Kind   string        `json:"kind"`
			Chunks []model.Chunk `json:"chunks"`
		}{e.Kind, chunks}
	case KindThrow:
		v = struct {
			Kind     string        `json:"kind"`
			Chunks   []model.Chunk `json:"chunks"`
			Message  string        `json:"message"`
			Code     string        `json:"code"`
			Accepted bool          `json:"accepted,omitempty"`
		}{e.Kind, chunks, e.Message, e.Code, e.Accepted}
	case KindHang:
		v = struct {
			Kind      string `json:"kind"`
			ReadyFile string `json:"readyFile,omitempty"`
		}{e.Kind, e.ReadyFile}
	default:
		return nil, fmt.Errorf("llmreplay: unknown entry kind %q", e.Kind)
	}
	return strictjson.Encode(v)
}
