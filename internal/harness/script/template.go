package script

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// spellings are the client's folder as given (main) and in every
// spelling, longest first (all).
type spellings struct {
	main string
	all  []string
}

func newSpellings(cwd string, aliases []string) spellings {
	all := []string{filepath.Clean(cwd)}
	for _, a := range aliases {
		if a = filepath.Clean(a); a != "/" && !slices.Contains(all, a) {
			all = append(all, a)
		}
	}
	slices.SortStableFunc(all, func(a, b string) int { return len(b) - len(a) })
	return spellings{main: filepath.Clean(cwd), all: all}
}

// is reports whether path is the folder, in any spelling.
func (s spellings) is(path string) bool {
	return slices.Contains(s.all, filepath.Clean(path))
}

// token writes the folder as {{cwd}} in text: every spelling, at a path
// boundary only (the folder "/w/proj" is not in "/w/proj2").
func (s spellings) token(text string) string {
	for _, sp := range s.all {
		if sp == "/" || !strings.Contains(text, sp) {
			continue
		}
		var b strings.Builder
		for rest := text; ; {
			i := strings.Index(rest, sp)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			end := i + len(sp)
			b.WriteString(rest[:i])
			if end == len(rest) || !pathChar(rest[end]) {
				b.WriteString("{{cwd}}")
			} else {
				b.WriteString(sp)
			}
			rest = rest[end:]
		}
		text = b.String()
	}
	return text
}

// pathChar reports whether c continues a file name (so a folder followed
// by it is another name: "proj" in "proj2", "proj.bak", "proj-x").
func pathChar(c byte) bool {
	return c == '.' || c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// template rewrites the strings of a JSON value: the folder as {{cwd}},
// a session id the run created as {{session:N}}. Keys are kept.
func (r *Recorder) template(raw json.RawMessage) (json.RawMessage, error) {
	if len(raw) == 0 {
		return raw, nil
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return encode(r.templateValue(v))
}

func (r *Recorder) templateValue(v any) any {
	switch x := v.(type) {
	case string:
		if i := slices.Index(r.sessions, x); i >= 0 {
			return "{{session:" + strconv.Itoa(i+1) + "}}"
		}
		return r.cwd.token(x)
	case []any:
		for i := range x {
			x[i] = r.templateValue(x[i])
		}
	case map[string]any:
		for k, e := range x {
			x[k] = r.templateValue(e)
		}
	}
	return v
}

// encode is v as compact JSON, HTML characters as written (a prompt's
// "<" stays "<").
func encode(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
