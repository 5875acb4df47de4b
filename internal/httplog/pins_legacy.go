package httplog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// LegacyFile is the pin file of a placeholder of the old form
// ("{{pin:agent:system}}" names pins/agent.system.md), and whether s is
// one (without its JSON quotes).
func LegacyFile(s string) (string, bool) {
	m := legacyRef.FindStringSubmatch(`"` + s + `"`)
	if m == nil || m[0] != `"`+s+`"` {
		return "", false
	}
	if m[2] == PinSystem {
		return m[1] + ".system.md", true
	}
	return m[1] + ".tools.json", true
}

// IsLegacyFile reports whether name is a pin file of the old form
// (<class>.system.md, <class>.tools.json).
func IsLegacyFile(name string) bool {
	return strings.HasSuffix(name, ".system.md") || strings.HasSuffix(name, ".tools.json")
}

// ExpandLegacy restores the placeholders of the old form in b from the old
// pin files in dir, which it reads as needed.
func ExpandLegacy(b []byte, dir string) ([]byte, error) {
	var err error
	out := legacyRef.ReplaceAllFunc(b, func(ref []byte) []byte {
		s := string(ref[1 : len(ref)-1])
		name, ok := LegacyFile(s)
		if !ok || err != nil {
			return ref
		}
		v, rerr := readLegacy(filepath.Join(dir, name))
		if rerr != nil {
			err = rerr
			return ref
		}
		if strings.HasSuffix(name, ".system.md") {
			return quote(string(v))
		}
		return v
	})
	return out, err
}

// readLegacy reads an old pin file: a prompt verbatim, a tools value
// compacted.
func readLegacy(path string) ([]byte, error) {
	b, err := safefile.Read(path, maxPinBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s: missing pin", path)
	}
	if err != nil || !strings.HasSuffix(path, ".json") {
		return b, err
	}
	if _, _, err := strictjson.Parse(b, path, 0, "$"); err != nil {
		return nil, err
	}
	var c bytes.Buffer
	_ = json.Compact(&c, b) // valid: checked above
	return c.Bytes(), nil
}

// Repin pins the request bodies a composed log stores whole, with p, as
// Compose does: its other lines, and every byte of a line but the body's,
// stay as they are. It is how a corpus written before pins were named by
// their content is converted: its old placeholders expanded first
// (ExpandLegacy), then its bodies pinned again.
func Repin(log []byte, p *Pins) ([]byte, error) {
	lines := bytes.SplitAfter(log, []byte("\n"))
	if len(lines) == 0 {
		return log, nil
	}
	var h ComposedHeader
	if err := json.Unmarshal(lines[0], &h); err != nil {
		return nil, fmt.Errorf("sessionlog: repin: the header: %w", err)
	}
	d := lookup(h.Dialect)
	for i, line := range lines[1:] {
		if !bytes.Contains(line, []byte(`"model/request"`)) {
			continue
		}
		lines[i+1] = repinLine(line, func(body []byte) []byte { return p.pin(d, body) })
	}
	return bytes.Join(lines, nil), nil
}

// repinLine is line with the body of its data replaced by f(body).
func repinLine(line []byte, f func([]byte) []byte) []byte {
	text := bytes.TrimSuffix(line, []byte("\n"))
	ms, ok := objectMembers(text)
	if !ok || unquoted(memberValue(ms, "type")) != "model/request" {
		return line
	}
	for i, m := range ms {
		if m.Key != "data" {
			continue
		}
		data, ok := objectMembers(m.Raw)
		if !ok {
			return line
		}
		for j, dm := range data {
			if dm.Key == "body" {
				data[j].Raw = f(dm.Raw)
			}
		}
		ms[i].Raw = buildObject(data)
	}
	return append(buildObject(ms), line[len(text):]...)
}
