package httplog

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/internal/atomicfile"
	"github.com/acpsnap/acpsnap/internal/jsonpos"
	"github.com/acpsnap/acpsnap/llmreplay/wire/dialect"
)

// Pins are the system prompt and tool schemas of one pin class of a
// corpus, stored once in <Dir>/<Class>.system.md (the prompt text,
// verbatim) and <Dir>/<Class>.tools.json (the tools value, indented), so
// that a prompt or schema change is one reviewable diff for the corpus.
// A log stores "{{pin:<class>:system}}" / "{{pin:<class>:tools}}" in their
// place; reading it with the pins (Expand) restores the full value.
//
// Where the values sit in a request body: the "tools" member in every
// dialect; the system prompt where the dialect table says
// (dialect.Dialect.System: messages[0].content of a system or developer
// message in openai-chat, "instructions" in openai-responses), when it is
// a JSON string. A value is
// pinned only when its bytes are exactly what the pin restores (a compact
// tools value, a string in its plain JSON encoding) and it occurs once in
// the body; anything else stays inline, so reading is always exact.
type Pins struct {
	Dir    string  // the corpus pins folder (the files' directory)
	Class  string  // the pin class chosen by the caller (a dialect or an agent name); "": pin nothing
	System *string // nil: no system pin
	Tools  []byte  // compact JSON; nil: no tools pin
	// Update: Compose takes the pins from the log's requests, whatever
	// order they arrived in (see choose): record and refresh rewrite the
	// pin once.
	Update bool

	changed bool
}

// SystemFile and ToolsFile are the paths of the pin files.
func (p *Pins) SystemFile() string { return filepath.Join(p.Dir, p.Class+".system.md") }

// ToolsFile is the path of the tool-schema pin.
func (p *Pins) ToolsFile() string { return filepath.Join(p.Dir, p.Class+".tools.json") }

// maxPinBytes caps a pin file (LoadPins reads only regular files, never
// through a final link): 16 MiB.
const maxPinBytes = 16 << 20

// LoadPins reads the pins of class from dir; a missing file is a missing
// pin, not an error (a log that needs it fails on reading).
func LoadPins(dir, class string) (*Pins, error) {
	p := &Pins{Dir: dir, Class: class}
	if b, err := safefile.Read(p.SystemFile(), maxPinBytes); err == nil {
		s := string(b)
		p.System = &s
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("sessionlog: pins: %w", err)
	}
	b, err := safefile.Read(p.ToolsFile(), maxPinBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return p, nil
	} else if err != nil {
		return nil, fmt.Errorf("sessionlog: pins: %w", err)
	}
	if _, _, err := jsonpos.Parse(b, p.ToolsFile(), 0, "$"); err != nil {
		return nil, fmt.Errorf("sessionlog: pins: %w", err)
	}
	var c bytes.Buffer
	_ = json.Compact(&c, b) // valid: checked above
	p.Tools = c.Bytes()
	return p, nil
}

// Changed reports whether Compose (with Update) changed a pin.
func (p *Pins) Changed() bool { return p != nil && p.changed }

// Write writes the pin files that are set.
func (p *Pins) Write() error {
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return fmt.Errorf("sessionlog: pins: %w", err)
	}
	if p.System != nil {
		if err := atomicfile.Write(p.SystemFile(), []byte(*p.System), 0o644); err != nil {
			return fmt.Errorf("sessionlog: pins: %w", err)
		}
	}
	if p.Tools != nil {
		var b bytes.Buffer
		_ = json.Indent(&b, p.Tools, "", "  ")
		b.WriteByte('\n')
		if err := atomicfile.Write(p.ToolsFile(), b.Bytes(), 0o644); err != nil {
			return fmt.Errorf("sessionlog: pins: %w", err)
		}
	}
	p.changed = false
	return nil
}

func (p *Pins) placeholder(kind string) []byte {
	return quote("{{pin:" + p.Class + ":" + kind + "}}")
}

// pinnable returns the system prompt and the tools value of body in the
// form a pin restores exactly (the prompt as a string in its plain JSON
// encoding, the tools compact), each nil when body has none in that form,
// or the body cannot be pinned at all.
func (p *Pins) pinnable(d *dialect.Dialect, body []byte) (system *string, tools []byte) {
	// Only a body stored as JSON is expanded on reading, and one with a
	// placeholder of its own would not expand exactly.
	if p == nil || p.Class == "" || !embeddable(body) || bytes.Contains(body, pinMark) {
		return nil, nil
	}
	ms, ok := objectMembers(body)
	if !ok {
		return nil, nil
	}
	var s string
	if raw := systemValue(d, body); raw != nil && json.Unmarshal(raw, &s) == nil && bytes.Equal(quote(s), raw) {
		system = &s
	}
	var c bytes.Buffer
	if raw := memberValue(ms, "tools"); raw != nil && json.Compact(&c, raw) == nil && bytes.Equal(c.Bytes(), raw) {
		tools = raw
	}
	return system, tools
}

// pin replaces the system prompt and tools of body by their placeholders
// where they equal the pins.
func (p *Pins) pin(d *dialect.Dialect, body []byte) []byte {
	system, tools := p.pinnable(d, body)
	if system != nil && p.System != nil && *p.System == *system {
		body = replaceOnce(body, quote(*system), p.placeholder("system"))
	}
	if tools != nil && bytes.Equal(p.Tools, tools) {
		body = replaceOnce(body, tools, p.placeholder("tools"))
	}
	return body
}

// choose sets the pins (Update) from the bodies of a log's requests (the
// ones stored whole), whatever order they arrived in: for the system
// prompt and for the tools, the current pin while a request still carries
// it, else the longest value one carries (the turn's: a side call made in
// parallel with it, a title or a summary, carries a shorter prompt or
// none, and fewer tools), the least in byte order on a tie. An empty
// prompt or tool list is never chosen: it would pin nothing. (The value
// of whichever call came first let a racing side call rewrite the pin.)
func (p *Pins) choose(d *dialect.Dialect, bodies [][]byte) {
	var systems, tools []string
	for _, b := range bodies {
		s, t := p.pinnable(d, b)
		if s != nil && *s != "" {
			systems = append(systems, *s)
		}
		if t != nil && string(t) != "[]" {
			tools = append(tools, string(t))
		}
	}
	var cur *string
	if p.Tools != nil {
		t := string(p.Tools)
		cur = &t
	}
	if v, ok := pick(p.System, systems); ok {
		p.changed = p.changed || p.System == nil || *p.System != v
		p.System = &v
	}
	if v, ok := pick(cur, tools); ok {
		p.changed = p.changed || cur == nil || *cur != v
		p.Tools = []byte(v)
	}
}

// pick is the pin value among vals (see choose); false when vals is empty.
func pick(cur *string, vals []string) (string, bool) {
	if cur != nil && slices.Contains(vals, *cur) {
		return *cur, true
	}
	if len(vals) == 0 {
		return "", false
	}
	return slices.MaxFunc(vals, func(a, b string) int {
		if len(a) != len(b) {
			return cmp.Compare(len(a), len(b))
		}
		return strings.Compare(b, a) // the least bytes is the greatest
	}), true
}

// replaceOnce replaces old by repl in b when old occurs exactly once and
// repl not at all, so that the inverse replacement is exact.
func replaceOnce(b, old, repl []byte) []byte {
	if bytes.Count(b, old) != 1 || bytes.Contains(b, repl) {
		return b
	}
	return bytes.Replace(b, old, repl, 1)
}

func memberValue(ms []member, key string) []byte {
	for _, m := range ms {
		if m.Key == key {
			return m.Raw
		}
	}
	return nil
}

// systemValue returns the raw system prompt of a request body where d
// keeps it (Dialect.System, SystemRoles), or nil.
func systemValue(d *dialect.Dialect, body []byte) []byte {
	if d == nil || d.System == "" {
		return nil
	}
	steps := strings.Split(d.System[1:], "/")
	holder := body
	for _, step := range steps[:len(steps)-1] {
		if holder = childValue(holder, step); holder == nil {
			return nil
		}
	}
	ms, ok := objectMembers(holder)
	if !ok {
		return nil
	}
	if len(d.SystemRoles) > 0 && !slices.Contains(d.SystemRoles, unquoted(memberValue(ms, "role"))) {
		return nil
	}
	return memberValue(ms, steps[len(steps)-1])
}

// childValue is the member key of an object, or the element at index key
// of an array; nil when there is none.
func childValue(raw []byte, key string) []byte {
	if ms, ok := objectMembers(raw); ok {
		return memberValue(ms, key)
	}
	i, err := strconv.Atoi(key)
	es, ok := arrayElements(raw)
	if err != nil || !ok || i < 0 || i >= len(es) {
		return nil
	}
	return es[i]
}

// unquoted is the string a raw JSON string holds; "" for any other value.
func unquoted(raw []byte) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	return s
}

var pinRef = regexp.MustCompile(`"\{\{pin:([^:{}"\\]*):(system|tools)\}\}"`)

// Expand restores the pinned values in b (a request body, or any JSON
// that holds pin placeholders). A placeholder whose pin is missing, or of
// another class than p's, is an error naming the pin file.
func (p *Pins) Expand(b []byte) ([]byte, error) {
	if !bytes.Contains(b, []byte(`"{{pin:`)) {
		return b, nil
	}
	var err error
	out := pinRef.ReplaceAllFunc(b, func(ref []byte) []byte {
		m := pinRef.FindSubmatch(ref)
		class, kind := string(m[1]), string(m[2])
		q := &Pins{Dir: "pins", Class: class}
		if p != nil {
			q.Dir = p.Dir
		}
		file := q.SystemFile()
		if kind == "tools" {
			file = q.ToolsFile()
		}
		switch {
		case p == nil || p.Class != class:
		case kind == "system" && p.System != nil:
			return quote(*p.System)
		case kind == "tools" && p.Tools != nil:
			return p.Tools
		}
		if err == nil {
			err = fmt.Errorf("%s: missing pin (the log refers to {{pin:%s:%s}})", file, class, kind)
		}
		return ref
	})
	return out, err
}
