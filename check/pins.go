package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"

	"github.com/acpsnap/acpsnap/internal/atomicfile"
	"github.com/acpsnap/acpsnap/internal/jsondiff"
	"github.com/acpsnap/acpsnap/internal/jsonl"
	"github.com/acpsnap/acpsnap/llmreplay/httplog"
	"github.com/acpsnap/acpsnap/scenario"
)

// Native logs are pinned like composed ones: the system prompt and the
// tool schemas of a request/header event that equal the corpus's pins
// (pins/agent.system.md, pins/agent.tools.json) are stored as
// {{pin:agent:system}} and {{pin:agent:tools}}, on both sides before they
// are compared, so a change of either is one diff for the corpus (the pin
// file) instead of one 4 KB line per scenario. Replay never reads them:
// derivation ignores what a request/header holds.
//
// A pin is set only in record mode, where the fixture used it or when the
// corpus has none yet: a changed system prompt is a changed model input,
// which refresh does not accept. Every scenario of a
// run that uses the pin must then agree on its new value.

const (
	pinSystem = "{{pin:" + scenario.PinClass + ":system}}"
	pinTools  = "{{pin:" + scenario.PinClass + ":tools}}"
)

// Claims are the pin values the scenarios of one run set, per pin file
// (record mode, a native corpus): two that set one pin to different values
// conflict. The zero value is ready; it is safe for concurrent use.
type Claims struct {
	mu sync.Mutex
	m  map[string]string
}

// claim sets file's value to v for this run, unless a scenario of the run
// set it to another value already.
func (c *Claims) claim(file, v string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if prev, ok := c.m[file]; ok && prev != v {
		return false
	}
	if c.m == nil {
		c.m = map[string]string{}
	}
	c.m[file] = v
	return true
}

// nativePins pins the request/header events of one scenario's logs.
type nativePins struct {
	pins   *httplog.Pins
	claims *Claims // what the run's other scenarios set
	claim  bool    // the mode may set the pins (record)
	err    error   // a claim that failed
	wrote  bool    // this scenario wrote the pin files
	// drift holds, per kind ("system", "tools"), the one value the live
	// side has instead of the pin where the fixture used the pin (not
	// claiming): the live side is pinned with it, and the change is shown
	// once, as a diff of the pin.
	drift map[string]string
}

// loadNativePins are the pins of the corpus root (as f read them, unless
// the mode writes).
func loadNativePins(f *Folders, root string, mode Mode, claims *Claims) (*nativePins, error) {
	p, err := f.pins(root, mode)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	return &nativePins{pins: p, claims: claims, claim: mode == Record}, nil
}

// fixture pins the committed side: inline values equal to the pins become
// placeholders (pinning is normalization: idempotent).
func (n *nativePins) fixture(t *scenario.Transcript) {
	for i := range t.Logs {
		t.Logs[i] = n.pinLog(t.Logs[i], nil, false)
	}
}

// live pins the run's side; want is the committed side (nil: none), whose
// placeholders say where this scenario uses the pins.
func (n *nativePins) live(t, want *scenario.Transcript) error {
	for i := range t.Logs {
		var w []byte
		if want != nil && i < len(want.Logs) {
			w = want.Logs[i]
		}
		t.Logs[i] = n.pinLog(t.Logs[i], headers(w), n.claim)
	}
	return n.err
}

// driftDiff is the change of each pin the live side drifted from, as a
// JSON-aware diff of the pin file against the live value, or "".
func (n *nativePins) driftDiff(cfg jsondiff.Config) (files []string, diff string) {
	for _, kind := range []string{"system", "tools"} {
		v, ok := n.drift[kind]
		if !ok {
			continue
		}
		file, old := n.pins.ToolsFile(), string(n.pins.Tools)
		if kind == "system" {
			q, _ := jsonl.Value(*n.pins.System)
			file, old = n.pins.SystemFile(), string(q)
			w, _ := jsonl.Value(v)
			v = string(w)
		}
		files = append(files, file)
		// As one-member objects, so that the diff names the JSON path.
		wrap := func(x string) []byte { return []byte(`{"` + kind + `":` + x + "}\n") }
		diff += jsondiff.Files(file, "live "+kind, wrap(old), wrap(v), cfg)
	}
	return files, diff
}

// expandInline puts the pin's value back on the committed side wherever
// the live side could not use the pin (its value differs), so that the
// diff shows what changed inside the value, not a placeholder against it.
func (n *nativePins) expandInline(want, got *scenario.Transcript, old httplog.Pins) {
	for i := range want.Logs {
		if i >= len(got.Logs) {
			return
		}
		g := headers(got.Logs[i])
		lines := bytes.SplitAfter(want.Logs[i], []byte("\n"))
		j := 0
		for k, line := range lines {
			data, ok := headerData(bytes.TrimSuffix(line, []byte("\n")))
			if !ok {
				continue
			}
			if j < len(g) {
				if x := expandData(data, g[j], old); !bytes.Equal(x, data) {
					lines[k] = bytes.Replace(line, data, x, 1)
				}
			}
			j++
		}
		want.Logs[i] = bytes.Join(lines, nil)
	}
}

// expandData expands the placeholders of data whose member in live is not
// a placeholder.
func expandData(data, live []byte, old httplog.Pins) []byte {
	var m, lm map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil || json.Unmarshal(live, &lm) != nil {
		return data
	}
	changed := false
	if string(m["system"]) == `"`+pinSystem+`"` && string(lm["system"]) != `"`+pinSystem+`"` && old.System != nil {
		b, _ := jsonl.Value(*old.System)
		m["system"], changed = b, true
	}
	if string(m["tools"]) == `"`+pinTools+`"` && string(lm["tools"]) != `"`+pinTools+`"` && old.Tools != nil {
		m["tools"], changed = old.Tools, true
	}
	if !changed {
		return data
	}
	return encode(m)
}

// headers are the data of a log's request/header events, in order.
func headers(log []byte) [][]byte {
	var out [][]byte
	for _, line := range bytes.Split(log, []byte("\n")) {
		if data, ok := headerData(line); ok {
			out = append(out, data)
		}
	}
	return out
}

// headerData is the data member of a request/header event line.
func headerData(line []byte) ([]byte, bool) {
	if !bytes.Contains(line, []byte(`"type":"request/header"`)) {
		return nil, false
	}
	var ev struct {
		Type string          `json:"type"`
		Data json.RawMessage `json:"data"`
	}
	if json.Unmarshal(line, &ev) != nil || ev.Type != "request/header" || len(ev.Data) == 0 {
		return nil, false
	}
	return ev.Data, true
}

// pinLog rewrites the request/header lines of log. With claim, the j-th
// header may set the pins where wantHeaders[j] used them (or no pin exists).
func (n *nativePins) pinLog(log []byte, wantHeaders [][]byte, claim bool) []byte {
	lines := bytes.SplitAfter(log, []byte("\n"))
	j := 0
	for i, line := range lines {
		data, ok := headerData(bytes.TrimSuffix(line, []byte("\n")))
		if !ok {
			continue
		}
		var w []byte
		if j < len(wantHeaders) {
			w = wantHeaders[j]
		}
		j++
		pinned := n.pinData(data, w, claim)
		if !bytes.Equal(pinned, data) {
			lines[i] = bytes.Replace(line, data, pinned, 1)
		}
	}
	return bytes.Join(lines, nil)
}

// pinData pins the system and tools members of one request/header data.
func (n *nativePins) pinData(data, want []byte, claim bool) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return data
	}
	var wm map[string]json.RawMessage
	_ = json.Unmarshal(want, &wm)
	changed := false
	if sys, ok := m["system"]; ok && string(sys) != `"`+pinSystem+`"` {
		var s string
		if json.Unmarshal(sys, &s) == nil && n.pinValue("system", s, string(wm["system"]) == `"`+pinSystem+`"`, claim) {
			m["system"], changed = json.RawMessage(`"`+pinSystem+`"`), true
		}
	}
	if tools, ok := m["tools"]; ok && string(tools) != `"`+pinTools+`"` {
		if n.pinValue("tools", string(tools), string(wm["tools"]) == `"`+pinTools+`"`, claim) {
			m["tools"], changed = json.RawMessage(`"`+pinTools+`"`), true
		}
	}
	if !changed {
		return data
	}
	return encode(m)
}

// pinValue reports whether v is (or, claiming, becomes) the pin of kind.
func (n *nativePins) pinValue(kind, v string, wantUsed, claim bool) bool {
	cur := n.current(kind)
	switch {
	case cur != nil && *cur == v:
		return true
	case !claim && cur != nil && wantUsed:
		if d, ok := n.drift[kind]; ok {
			return d == v // one new value is shown once; another stays inline
		}
		if n.drift == nil {
			n.drift = map[string]string{}
		}
		n.drift[kind] = v
		return true
	case !claim || cur != nil && !wantUsed:
		return false
	}
	file := n.pins.SystemFile()
	if kind == "tools" {
		file = n.pins.ToolsFile()
	}
	if !n.claims.claim(file, v) {
		n.err = fmt.Errorf("check: scenarios of this run that share %s set it to different values; record them one at a time or make them agree", file)
		return false
	}
	if kind == "tools" {
		n.pins.Tools = []byte(v)
	} else {
		n.pins.System = &v
	}
	n.wrote = true
	if err := n.pins.Write(); err != nil {
		n.err = err
		return false
	}
	return true
}

func (n *nativePins) current(kind string) *string {
	if kind == "system" {
		return n.pins.System
	}
	if n.pins.Tools == nil {
		return nil
	}
	s := string(n.pins.Tools)
	return &s
}

// encode writes m as compact JSON with sorted keys and its values as they
// are, without HTML escaping: the form of a normalized line.
func encode(m map[string]json.RawMessage) []byte {
	b, _ := jsonl.Value(m) // a map of valid raw values always encodes
	return b
}

// pinsUndo returns what puts the pin files of p back as they are now
// (their bytes, or their absence, and the pins folder's).
func pinsUndo(p *httplog.Pins) func() {
	_, dirErr := os.Stat(p.Dir)
	type was struct {
		path string
		b    []byte
		err  error
	}
	var files []was
	for _, f := range []string{p.SystemFile(), p.ToolsFile()} {
		b, err := os.ReadFile(f)
		files = append(files, was{f, b, err})
	}
	return func() {
		for _, f := range files {
			if f.err == nil {
				atomicfile.Write(f.path, f.b, 0o644)
			} else {
				os.Remove(f.path)
			}
		}
		if dirErr != nil {
			os.Remove(p.Dir) // only when empty
		}
	}
}
