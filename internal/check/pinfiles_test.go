package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestPrunePins: a pin a committed or a pending log names stays; one no
// log names, and what a killed pin write left, go; the guards refuse a
// file of the old form and anything else in pins/, and list the
// unreferenced pins only when asked (acpsnap verify).
func TestPrunePins(t *testing.T) {
	root := t.TempDir()
	pins := httplog.OpenPins(filepath.Join(root, scenario.PinsDir)).Overlay()
	committed := pins.Pin(httplog.PinSystem, []byte("You are committed."))
	pending := pins.Pin(httplog.PinSystem, []byte("You are pending."))
	pins.Pin(httplog.PinTools, []byte(`[{"name":"unused"}]`))
	wrote, err := pins.Write()
	if err != nil || len(wrote) != 3 {
		t.Fatalf("wrote %q, %v", wrote, err)
	}
	for name, body := range map[string]string{
		"a/" + scenario.SessionFile:                           string(header(`"`+committed+`"`, `[]`)),
		"b/" + scenario.ChildFile(1) + scenario.PendingSuffix: string(header(`"`+pending+`"`, `[]`)),
		"pins/.tools-0123456789ab.json.tmp-42":                "half a pin",
	} {
		p := filepath.Join(root, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	unused := wrote[2]
	if got, err := UnreferencedPins(root); err != nil || !cmp.Equal(got, []string{unused}) {
		t.Errorf("UnreferencedPins = %q, %v; want %q", got, err, unused)
	}
	for _, name := range []string{"agent.system.md", "notes.txt"} {
		os.WriteFile(filepath.Join(root, scenario.PinsDir, name), []byte("x"), 0o644)
	}
	var got []string
	for _, v := range pinFolder(root, true) {
		got = append(got, strings.TrimPrefix(v.String(), root+"/"))
	}
	want := []string{
		"pins/agent.system.md: a pin of the old form, one file the whole corpus shared: convert the corpus with: acpsnap pins migrate -dir " + root,
		"pins/notes.txt: not a pin file (pins/ holds system-<hash>.md and tools-<hash>.json files only)",
		strings.TrimPrefix(unused, root+"/") + ": no scenario names this pin (remove it with: acpsnap pins prune -dir " + root + ")",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("pins/ violations (-want +got):\n%s", d)
	}
	if vs := pinFolder(root, false); len(vs) != 2 {
		t.Errorf("without unreferenced: %v, want the two stray files only", vs)
	}
	removed, err := PrunePins(root)
	if d := cmp.Diff([]string{unused, filepath.Join(root, "pins/.tools-0123456789ab.json.tmp-42")}, removed); err != nil || d != "" {
		t.Errorf("PrunePins: %v (-want +got):\n%s", err, d)
	}
	for _, p := range wrote[:2] {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("a named pin went: %v", err)
		}
	}
}
