package check

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/textdiff"
)

// header is a request/header event line of a native log.
func header(system, tools string) []byte {
	return []byte(`{"data":{"model":"m","system":` + system + `,"tools":` + tools + `},"seq":0,"time":0,"type":"request/header"}` + "\n")
}

// TestNativePinsEveryPrompt: every prompt and tools value of a native
// log's request/header events is pinned to the file its content names,
// two scenarios with different prompts each keep theirs, an empty value
// stays inline, and pinning a pinned log changes nothing.
func TestNativePinsEveryPrompt(t *testing.T) {
	store := httplog.OpenPins(t.TempDir())
	a, b := &nativePins{pins: store.Overlay()}, &nativePins{pins: store.Overlay()}
	logA := a.pinLog(header(`"You list a.txt."`, `[{"name":"ls"}]`))
	logB := b.pinLog(append(header(`"You list b.txt."`, `[{"name":"ls"}]`), header(`""`, `[]`)...))
	want := `{"data":{"model":"m","system":"` + httplog.Placeholder(httplog.PinSystem, []byte("You list a.txt.")) +
		`","tools":"` + httplog.Placeholder(httplog.PinTools, []byte(`[{"name":"ls"}]`)) + `"},"seq":0,"time":0,"type":"request/header"}` + "\n"
	if d := cmp.Diff(want, string(logA)); d != "" {
		t.Errorf("pinned log (-want +got):\n%s", d)
	}
	if !bytes.HasSuffix(logB, header(`""`, `[]`)) {
		t.Errorf("an empty prompt and tool list were pinned:\n%s", logB)
	}
	if again := a.pinLog(logA); !bytes.Equal(again, logA) {
		t.Errorf("pinning again changed the log:\n%s", again)
	}
	for _, p := range []*nativePins{a, b} {
		if _, err := p.pins.Write(); err != nil {
			t.Fatal(err)
		}
	}
	for _, log := range [][]byte{logA, logB} {
		for _, ph := range httplog.Refs(log) {
			if _, err := store.Value(ph); err != nil {
				t.Errorf("%s: %v", ph, err)
			}
		}
	}
}

// TestNativePinDrift: a live request/header that names another pin than
// the committed one at its place is one change per kind, shown as a diff
// of the committed pin file against the live value.
func TestNativePinDrift(t *testing.T) {
	store := httplog.OpenPins(t.TempDir())
	rec := &nativePins{pins: store.Overlay()}
	want := &scenario.Transcript{Logs: [][]byte{rec.pinLog(append(header(`"You are terse."`, `[{"name":"ls"}]`), header(`"You are terse."`, `[{"name":"ls"}]`)...))}}
	if _, err := rec.pins.Write(); err != nil {
		t.Fatal(err)
	}
	run := &nativePins{pins: store.Overlay()}
	got := &scenario.Transcript{Logs: [][]byte{append(header(`"You are verbose."`, `[{"name":"ls"}]`), header(`"You are verbose."`, `[{"name":"ls"}]`)...)}}
	run.live(got, want)
	if len(run.drift) != 1 || run.drift[0].kind != httplog.PinSystem {
		t.Fatalf("drift = %+v, want one change of the system prompt", run.drift)
	}
	files, diff := run.driftDiff(textdiff.Config{})
	name, _ := httplog.FileName(httplog.Placeholder(httplog.PinSystem, []byte("You are terse.")))
	if len(files) != 1 || !strings.HasSuffix(files[0], name) {
		t.Errorf("files = %q, want the committed pin %s", files, name)
	}
	for _, w := range []string{"--- want: " + files[0], `-   "You are terse."`, `+   "You are verbose."`} {
		if !strings.Contains(diff, w) {
			t.Errorf("the diff lacks %q:\n%s", w, diff)
		}
	}
}

// TestPinNormalized: data in normalize's form is pinned in place to the
// very bytes decoding and encoding it gives (every request/header of the
// bundled corpus, its pins restored, and variants), and data in another
// form is left to that path.
func TestPinNormalized(t *testing.T) {
	type testCase struct {
		name, data string
		inPlace    bool
	}
	tests := []testCase{
		{"system and tools", `{"model":"m","step":1,"system":"You list.","tools":[{"name":"ls"}],"turn":1}`, true},
		{"escapes in the prompt", `{"system":"a\"b\\c\u00e9\n","tools":[]}`, true},
		{"empty values", `{"system":"","tools":[],"turn":1}`, true},
		{"placeholders", `{"system":"{{pin:system:0123456789ab}}","tools":"{{pin:tools:0123456789ab}}"}`, true},
		{"a prompt that is no string", `{"system":3,"tools":null}`, true},
		{"no pinned member", `{"a":{"b":[1,"}"]},"z":true}`, true},
		{"empty", `{}`, true},
		{"keys out of order", `{"tools":[{"name":"ls"}],"system":"You list."}`, false},
		{"blanks", `{"system": "You list.", "tools": [ {"name":"ls"} ]}`, false},
		{"an escaped key", `{"syst\u0065m":"You list."}`, false},
	}
	for _, path := range []string{"../../snapshots/*/session*.jsonl", "../../snapshots/*/*/session*.jsonl"} {
		logs, _ := filepath.Glob(path)
		for _, p := range logs {
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if b, err = httplog.OpenPins("../../snapshots/pins").Expand(b); err != nil {
				t.Fatal(err)
			}
			for _, line := range bytes.Split(b, []byte("\n")) {
				if data, ok := normalizedData(line); ok {
					tests = append(tests, testCase{p, string(data), true})
				}
			}
		}
	}
	if len(tests) < 20 {
		t.Fatalf("only %d cases: the corpus's request/header events were not found", len(tests))
	}
	for _, tc := range tests {
		fast, slow := &nativePins{pins: httplog.OpenPins("")}, &nativePins{pins: httplog.OpenPins("")}
		got, ok := fast.pinNormalized([]byte(tc.data))
		if ok != tc.inPlace {
			t.Errorf("%s: pinned in place %v, want %v", tc.name, ok, tc.inPlace)
		}
		if want := slow.pinDecoded([]byte(tc.data)); ok && !bytes.Equal(got, want) {
			t.Errorf("%s: in place (-decoded +in place):\n%s", tc.name, cmp.Diff(string(want), string(got)))
		}
	}
}
