package tool

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/acpsnap/acpsnap/internal/normalize"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// RunPaths returns the path rules of a run's folders, each with the
// spellings normalize.Aliases finds (it resolves symbolic links): what
// Config.Paths takes. A folder given as "" is left out.
func RunPaths(cwd, home, root string) *normalize.Paths {
	c := normalize.NewContext(cwd, normalize.Aliases(cwd)...)
	if home != "" {
		c.AddPath("home", home, normalize.Aliases(home)...)
	}
	if root != "" {
		c.AddPath("root", root, normalize.Aliases(root)...)
	}
	return normalize.NewPaths(c)
}

// scrub returns the canonical JSON canon with the run's folders replaced
// by their tokens in every string and object key: the form a cassette
// stores and identifies calls by. Without path rules it is canon.
func scrub(p *normalize.Paths, canon []byte) ([]byte, error) {
	if p == nil {
		return canon, nil
	}
	return mapStrings(canon, p.Scrub)
}

// expand is scrub's inverse: a stored value with today's folders.
func expand(p *normalize.Paths, canon []byte) ([]byte, error) {
	if p == nil {
		return canon, nil
	}
	return mapStrings(canon, p.Expand)
}

// mapStrings applies f to every string and object key of the canonical
// JSON canon and returns the canonical result (canon when f changed
// nothing).
func mapStrings(canon []byte, f func(string) string) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(canon))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("paths: %w", err)
	}
	changed := false
	v = walkStrings(v, func(s string) string {
		out := f(s)
		changed = changed || out != s
		return out
	})
	if !changed {
		return canon, nil
	}
	return strictjson.Encode(v) // maps marshal with sorted keys: canonical
}

func walkStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = walkStrings(x[i], f)
		}
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[f(k)] = walkStrings(e, f)
		}
		return out
	}
	return v
}

// scrubText and expandText do the same to an error message.
func scrubText(p *normalize.Paths, s string) string {
	if p == nil {
		return s
	}
	return p.Scrub(s)
}

func expandText(p *normalize.Paths, s string) string {
	if p == nil {
		return s
	}
	return p.Expand(s)
}
