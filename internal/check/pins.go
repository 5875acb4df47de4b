package check

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/secrets"
	"github.com/acpsnap/acpsnap/internal/strictjson"
	"github.com/acpsnap/acpsnap/internal/textdiff"
)

// Native logs are pinned like composed ones (httplog.Pins): the system
// prompt and the tool schemas of a request/header event are stored as
// {{pin:system:<hash>}} and {{pin:tools:<hash>}}, on both sides before
// they are compared, so a long prompt is one file for the corpus instead
// of one 4 KB line per scenario, and its change one new file. Replay never
// reads them: derivation ignores what a request/header holds.
//
// A changed prompt is a changed model input, which only record accepts:
// outside record, a live request/header that names another pin than the
// committed one at its place fails the scenario, and the change is shown
// once, as a diff of the two values.

// pinStore is the pins of the corpus at root: f's when it read that
// corpus, else opened now (nothing is read until a value is needed).
func (f *Folders) pinStore(root string) *httplog.Pins {
	if f != nil && f.Pins != nil && filepath.Clean(f.Root) == filepath.Clean(root) {
		return f.Pins
	}
	return httplog.OpenPins(filepath.Join(root, scenario.PinsDir))
}

// nativePins pins the request/header events of one scenario's logs.
type nativePins struct {
	pins *httplog.Pins // the check's overlay
	// drift holds, per kind, the first place where the live side names
	// another pin than the committed side: the change is shown once, as a
	// diff of the two values.
	drift []pinDrift
}

// pinDrift is a pin of kind the live side changed: the committed
// placeholder and the live one.
type pinDrift struct{ kind, want, got string }

// fixture pins the committed side: inline values become placeholders
// (pinning is normalization: idempotent).
func (n *nativePins) fixture(t *scenario.Transcript) {
	for i := range t.Logs {
		t.Logs[i] = n.pinLog(t.Logs[i])
	}
}

// live pins the run's side; want is the committed side (nil: none), with
// whose pins it is compared.
func (n *nativePins) live(t, want *scenario.Transcript) {
	for i := range t.Logs {
		t.Logs[i] = n.pinLog(t.Logs[i])
		if want != nil && i < len(want.Logs) && !bytes.Equal(want.Logs[i], t.Logs[i]) { // equal logs name the same pins
			n.compare(headers(want.Logs[i]), headers(t.Logs[i]))
		}
	}
}

// compare notes the first change of each kind of pin between the
// request/header data want and got, pairwise.
func (n *nativePins) compare(want, got [][]byte) {
	for j := range min(len(want), len(got)) {
		var wm, gm map[string]json.RawMessage
		if json.Unmarshal(want[j], &wm) != nil || json.Unmarshal(got[j], &gm) != nil {
			continue
		}
		for _, kind := range []string{httplog.PinSystem, httplog.PinTools} {
			w, g := placeholder(wm[kind]), placeholder(gm[kind])
			if w != "" && g != "" && w != g && !n.drifted(kind) {
				n.drift = append(n.drift, pinDrift{kind, w, g})
			}
		}
	}
}

func (n *nativePins) drifted(kind string) bool {
	for _, d := range n.drift {
		if d.kind == kind {
			return true
		}
	}
	return false
}

// placeholder is the pin placeholder raw holds, or "".
func placeholder(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return ""
	}
	if _, ok := httplog.FileName(s); !ok {
		return ""
	}
	return s
}

// mask makes the live logs t name the committed pins where they drifted,
// so that the diff of the logs shows what else changed.
func (n *nativePins) mask(t *scenario.Transcript) {
	for i := range t.Logs {
		for _, d := range n.drift {
			t.Logs[i] = bytes.ReplaceAll(t.Logs[i], []byte(`"`+d.got+`"`), []byte(`"`+d.want+`"`))
		}
	}
}

// driftDiff is the change of each pin the live side drifted from, as a
// JSON-aware diff of the committed pin file against the live value, and
// the pin files.
func (n *nativePins) driftDiff(cfg textdiff.Config) (files []string, diff string) {
	for _, d := range n.drift {
		name, _ := httplog.FileName(d.want)
		file := n.pins.File(name)
		files = append(files, file)
		// As one-member objects, so that the diff names the JSON path.
		diff += textdiff.JSONFiles(file, "live "+d.kind, n.pinned(d.kind, d.want), n.pinned(d.kind, d.got), cfg)
	}
	return files, diff
}

// pinned is the value of the placeholder ph as the line {"<kind>": value};
// a pin that cannot be read shows as its error.
func (n *nativePins) pinned(kind, ph string) []byte {
	v, err := n.pins.Value(ph)
	switch {
	case err != nil:
		v, _ = strictjson.Encode(err.Error())
	case kind == httplog.PinSystem:
		v, _ = strictjson.Encode(string(v))
	}
	return []byte(`{"` + kind + `":` + string(v) + "}\n")
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
	if data, ok := normalizedData(line); ok {
		return data, true
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

// pinLog pins the request/header lines of log.
func (n *nativePins) pinLog(log []byte) []byte {
	lines := bytes.SplitAfter(log, []byte("\n"))
	for i, line := range lines {
		data, ok := headerData(bytes.TrimSuffix(line, []byte("\n")))
		if !ok {
			continue
		}
		if pinned := n.pinData(data); !bytes.Equal(pinned, data) {
			lines[i] = bytes.Replace(line, data, pinned, 1)
		}
	}
	return bytes.Join(lines, nil)
}

// normalizedData is the data member of line when line is an event as
// normalize writes it, {"data":{…},…,"type":"request/header"} (its keys
// sorted, nothing blank), found without decoding the line.
func normalizedData(line []byte) ([]byte, bool) {
	const head = `{"data":`
	if !bytes.HasPrefix(line, []byte(head+"{")) || !bytes.HasSuffix(line, []byte(`,"type":"request/header"}`)) {
		return nil, false
	}
	end := strictjson.ValueEnd(line, len(head))
	if end >= len(line) || line[end] != ',' {
		return nil, false
	}
	return line[len(head):end], true
}

// pinData pins the system and tools members of one request/header data:
// a prompt that is a non-empty string, a tools value that is not empty,
// neither a placeholder already (of either form: an old one stays, for
// the guards to name). Data in normalize's form is edited in place
// (pinNormalized), any other decoded and encoded again: the same bytes.
func (n *nativePins) pinData(data []byte) []byte {
	if out, ok := n.pinNormalized(data); ok {
		return out
	}
	return n.pinDecoded(data)
}

// pinDecoded is pinData by decoding data and encoding it again.
func (n *nativePins) pinDecoded(data []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return data
	}
	changed := false
	for _, key := range []string{"system", "tools"} {
		var c bytes.Buffer
		if raw, ok := m[key]; ok && json.Compact(&c, raw) == nil {
			if ph := n.pin(key, c.Bytes()); ph != "" {
				m[key], changed = quoted(ph), true
			}
		}
	}
	if !changed {
		return data
	}
	return encode(m)
}

// pinNormalized is pinData for data as normalize writes it (members in
// the order of their plain keys, nothing blank outside strings), which
// encode would write back as it is: the pinned members' values are
// replaced where they stand. ok is false for data in another form.
func (n *nativePins) pinNormalized(data []byte) (out []byte, ok bool) {
	if len(data) < 2 || data[0] != '{' || !blankless(data) {
		return nil, false
	}
	var prev []byte
	last := 0
	for i := 1; i < len(data) && data[i] != '}'; {
		if data[i] != '"' {
			return nil, false
		}
		k := strictjson.StringEnd(data, i)
		key := data[i+1 : k-1]
		if k+1 >= len(data) || data[k] != ':' || bytes.IndexByte(key, '\\') >= 0 || prev != nil && bytes.Compare(prev, key) >= 0 {
			return nil, false
		}
		prev = key
		v := k + 1
		end := strictjson.ValueEnd(data, v)
		if end >= len(data) {
			return nil, false
		}
		if ph := n.pin(string(key), data[v:end]); ph != "" {
			out = append(append(out, data[last:v]...), quoted(ph)...)
			last = end
		}
		if i = end; data[i] == ',' {
			i++
		}
	}
	if out == nil {
		return data, true
	}
	return append(out, data[last:]...), true
}

// pin is the placeholder of the member key of a request/header data whose
// value is raw (compact), "" when it is not pinned: a system prompt that
// is a non-empty string, tools that are not empty, neither a placeholder.
func (n *nativePins) pin(key string, raw []byte) string {
	switch {
	case httplog.EmptyValue(raw):
		return ""
	case key == "system" && raw[0] == '"':
		if s := strictjson.Unquote(raw); !strings.HasPrefix(s, "{{pin:") {
			return n.pins.Pin(httplog.PinSystem, []byte(s))
		}
	case key == "tools" && !bytes.HasPrefix(raw, []byte(`"{{pin:`)):
		return n.pins.Pin(httplog.PinTools, raw)
	}
	return ""
}

// blankless reports whether the JSON b has no white space outside its
// strings.
func blankless(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '"':
			i = strictjson.StringEnd(b, i) - 1
		case ' ', '\t', '\r', '\n':
			return false
		}
	}
	return true
}

func quoted(s string) json.RawMessage {
	b, _ := strictjson.Encode(s)
	return b
}

// encode writes m as compact JSON with sorted keys and its values as they
// are, without HTML escaping: the form of a normalized line.
func encode(m map[string]json.RawMessage) []byte {
	b, _ := strictjson.Encode(m) // a map of valid raw values always encodes
	return b
}

// leakedPins refuses pins the check made that hold a secret value: a log
// keeps a placeholder where its system prompt or tool schemas were, so
// the value would reach only the pin files (and every report that shows
// them). The pins the corpus holds already were scanned when written.
func leakedPins(leaks *secrets.Set, p *httplog.Pins) error {
	if leaks.Len() == 0 {
		return nil
	}
	for _, f := range p.Fresh() {
		if err := leaks.Check(f.Path, f.Data); err != nil {
			return err
		}
	}
	return nil
}
