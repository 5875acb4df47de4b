package httplog

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestComposePinsEveryPrompt: every non-empty system prompt and tools
// value a whole request carries is pinned to a file of its own, named by
// its content, so a side call (a title, a summary) that races the turn
// pins its own prompt, and each call's placeholders are the same
// whichever call came first. Before, one pin per corpus held the turn's,
// chosen among the calls.
func TestComposePinsEveryPrompt(t *testing.T) {
	bodies := map[string]string{
		"turn":       `{"model":"m","system":"You are the turn's agent.","messages":[{"role":"user","content":"hi"}],"tools":[{"name":"read"},{"name":"write"}]}`,
		"untitled":   `{"model":"m","system":"","messages":[{"role":"user","content":"Title this: hi"}],"tools":[]}`,
		"summarizer": `{"model":"m","system":"Summarize.","messages":[{"role":"user","content":"Summarize: hi"}],"tools":[{"name":"read"}]}`,
	}
	// want is each call's request line from "data" on, once pinned.
	want := map[string]string{
		"turn":       `"body":{"model":"m","system":"{{pin:system:` + hash(PinSystem, "You are the turn's agent.") + `}}","messages":[{"role":"user","content":"hi"}],"tools":"{{pin:tools:` + hash(PinTools, `[{"name":"read"},{"name":"write"}]`) + `}}"}`,
		"untitled":   `"body":` + bodies["untitled"],
		"summarizer": `"body":{"model":"m","system":"{{pin:system:` + hash(PinSystem, "Summarize.") + `}}","messages":[{"role":"user","content":"Summarize: hi"}],"tools":"{{pin:tools:` + hash(PinTools, `[{"name":"read"}]`) + `}}"}`,
	}
	for _, order := range [][]string{{"untitled", "turn", "summarizer"}, {"turn", "summarizer", "untitled"}, {"summarizer", "untitled", "turn"}} {
		t.Run(strings.Join(order, ","), func(t *testing.T) {
			var xs []Exchange
			for _, name := range order {
				xs = append(xs, Exchange{Request: Request{Method: "POST", Path: "/v1/messages", Body: []byte(bodies[name])},
					Response: Response{Status: 200, Body: []byte(`{}`)}})
			}
			dir := t.TempDir()
			pins := OpenPins(dir).Overlay()
			log, err := Compose(context.Background(), xs, header("anthropic-messages"), pins)
			if err != nil {
				t.Fatal(err)
			}
			var got, wantLines []string
			for _, line := range strings.Split(string(log), "\n") {
				if i := strings.Index(line, `"body":`); i >= 0 && strings.Contains(line, "model/request") {
					got = append(got, strings.TrimSuffix(line[i:], "}}"))
				}
			}
			for _, name := range order {
				wantLines = append(wantLines, want[name])
			}
			if d := cmp.Diff(wantLines, got); d != "" {
				t.Errorf("request bodies (-want +got):\n%s", d)
			}
			wrote, err := pins.Write()
			if err != nil || len(wrote) != 4 {
				t.Fatalf("wrote %q (%v), want 4 pin files", wrote, err)
			}
			if _, back, err := Decompose(log, "f.jsonl", OpenPins(dir)); err != nil || !cmp.Equal(xs, back) {
				t.Errorf("Decompose: %v; round trip (-want +got):\n%s", err, cmp.Diff(xs, back))
			}
		})
	}
}

// hash is the hash of the pin of kind holding v.
func hash(kind, v string) string {
	ph := Placeholder(kind, []byte(v))
	return ph[len("{{pin:"+kind+":") : len(ph)-2]
}

// TestPinsWriteOnce: two runs that write the same pin at once both
// succeed and leave one file with its bytes; a pin file is never
// replaced, and one that holds other bytes than its name says is refused
// wherever it is read or would be written.
func TestPinsWriteOnce(t *testing.T) {
	dir := t.TempDir()
	store := OpenPins(dir)
	const prompt = "You list the workspace."
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			run := store.Overlay()
			run.Pin(PinSystem, []byte(prompt))
			_, errs[i] = run.Write()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("a concurrent write of the same pin: %v", err)
		}
	}
	ph := Placeholder(PinSystem, []byte(prompt))
	name, _ := FileName(ph)
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != name {
		t.Fatalf("pins folder holds %v, want only %s", entries, name)
	}
	if v, err := OpenPins(dir).Value(ph); err != nil || string(v) != prompt {
		t.Fatalf("Value = %q, %v", v, err)
	}
	// The name is what sha256sum prints for the file.
	if want := "system-8617c46d84bc.md"; name != want {
		t.Errorf("pin file %s, want %s", name, want)
	}

	// An edited pin: reading refuses it, and writing never overwrites it.
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte("You list nothing."), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenPins(dir).Value(ph); err == nil || !strings.Contains(err.Error(), name+": holds another value than its name says") {
		t.Errorf("reading an edited pin: %v", err)
	}
	run := OpenPins(dir).Overlay()
	run.Pin(PinSystem, []byte(prompt))
	if _, err := run.Write(); err == nil || !strings.Contains(err.Error(), "exists with other bytes") {
		t.Errorf("writing over an edited pin: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "You list nothing." {
		t.Errorf("the write replaced the file: %q", b)
	}
}

// TestPinsOverlay: what a run pins stays its own until it writes it: the
// corpus's pins and another run's overlay do not see it; a run reads the
// corpus's pins through its overlay.
func TestPinsOverlay(t *testing.T) {
	dir := t.TempDir()
	store := OpenPins(dir)
	a, b := store.Overlay(), store.Overlay()
	ph := a.Pin(PinTools, []byte(`[{"name":"ls"}]`))
	if _, err := b.Value(ph); err == nil || !strings.Contains(err.Error(), "missing pin") {
		t.Errorf("another run sees an unwritten pin: %v", err)
	}
	if _, err := store.Value(ph); err == nil {
		t.Error("the corpus sees an unwritten pin")
	}
	if fresh := a.Fresh(); len(fresh) != 1 || string(fresh[0].Data) != "[\n  {\n    \"name\": \"ls\"\n  }\n]\n" {
		t.Errorf("Fresh = %q, want the tools pin, indented", fresh)
	}
	if _, err := a.Write(); err != nil {
		t.Fatal(err)
	}
	if v, err := b.Value(ph); err != nil || string(v) != `[{"name":"ls"}]` {
		t.Errorf("after the write, another run reads %q, %v", v, err)
	}
	if fresh := a.Fresh(); len(fresh) != 0 {
		t.Errorf("Fresh after Write = %q", fresh)
	}
}

// TestMigrateComposedLog: a log of the old form, its placeholders restored
// (ExpandLegacy) and pinned again (Repin), is the log Compose writes now,
// and reads back to the same exchanges.
func TestMigrateComposedLog(t *testing.T) {
	for _, c := range conversations {
		t.Run(c.dialect, func(t *testing.T) {
			ref := &Pins{}
			now, err := Compose(context.Background(), c.exchanges(), header(c.dialect), ref)
			if err != nil {
				t.Fatal(err)
			}
			old := regexp.MustCompile(`\{\{pin:(system|tools):[0-9a-f]{12}\}\}`).ReplaceAll(now, []byte("{{pin:agent:$1}}"))
			legacy := t.TempDir()
			for kind, file := range map[string]string{PinSystem: "agent.system.md", PinTools: "agent.tools.json"} {
				v, err := ref.Value(regexp.MustCompile(`\{\{pin:` + kind + `:[0-9a-f]{12}\}\}`).FindString(string(now)))
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(legacy, file), fileBytes(kind+"-", v), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			expanded, err := ExpandLegacy(old, legacy)
			if err != nil {
				t.Fatal(err)
			}
			pins := &Pins{}
			got, err := Repin(expanded, pins)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(string(now), string(got)); d != "" {
				t.Errorf("migrated log (-want +got):\n%s", d)
			}
			if _, xs, err := Decompose(got, "f.jsonl", pins); err != nil || !cmp.Equal(c.exchanges(), xs) {
				t.Errorf("Decompose: %v", err)
			}
			if !bytes.Equal(old, regexp.MustCompile(`\{\{pin:(system|tools):[0-9a-f]{12}\}\}`).ReplaceAll(got, []byte("{{pin:agent:$1}}"))) {
				t.Error("the migration changed more than the placeholders")
			}
		})
	}
}

// FuzzRepin: pinning a composed log again (Repin) never changes what it
// reads back as, and is idempotent.
func FuzzRepin(f *testing.F) {
	seedComposed(f)
	f.Fuzz(func(t *testing.T, log []byte) {
		_, want, err := Decompose(log, "f.jsonl", nil)
		if err != nil {
			return
		}
		pins := &Pins{}
		once, err := Repin(log, pins)
		if err != nil {
			return
		}
		_, got, err := Decompose(once, "g.jsonl", pins)
		if err != nil {
			t.Fatalf("a repinned log does not read: %v\n%s", err, once)
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("(-log +repinned):\n%s", d)
		}
		if twice, err := Repin(once, pins); err != nil || !bytes.Equal(once, twice) {
			t.Errorf("Repin is not idempotent: %v\n%s\n%s", err, once, twice)
		}
	})
}

// TestPinHashesOnce: the hashes a Pins remembers for its overlays give
// each value of each kind its own placeholder, Placeholder's.
func TestPinHashesOnce(t *testing.T) {
	store := OpenPins("")
	type testCase struct{ kind, v string }
	for _, tc := range []testCase{{PinTools, `[{"name":"a"}]`}, {PinSystem, `[{"name":"a"}]`}, {PinTools, `[{"name":"b"}]`}, {PinTools, `[{"name":"a"}]`}} {
		got := store.Overlay().Pin(tc.kind, []byte(tc.v))
		if want := Placeholder(tc.kind, []byte(tc.v)); got != want {
			t.Errorf("Pin(%s, %s) = %s, want %s", tc.kind, tc.v, got, want)
		}
	}
	if n := len(store.hashes); n != 3 {
		t.Errorf("the store remembers %d hashes, want 3", n)
	}
}
