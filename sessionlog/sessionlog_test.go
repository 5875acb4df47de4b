package sessionlog

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWriterRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s1", FileName)
	clock := time.UnixMilli(1000)
	w, err := Create(path, Header{ID: "s1", CreatedAt: 5, Cwd: "/w"}, func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Append("turn/start", map[string]int{"turn": i}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Append("late", nil); err == nil {
		t.Error("Append after Close succeeded")
	}
	l, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want := Header{Type: "session", Version: 1, ID: "s1", CreatedAt: 5, Cwd: "/w"}
	if d := cmp.Diff(want, l.Header); d != "" {
		t.Errorf("header (-want +got):\n%s", d)
	}
	if len(l.Events) != 50 {
		t.Fatalf("got %d events, want 50", len(l.Events))
	}
	for i, e := range l.Events {
		if e.Seq != i || e.Time != 1000 || e.Line != i+2 {
			t.Errorf("event %d: seq %d time %d line %d", i, e.Seq, e.Time, e.Line)
		}
	}
	if _, err := Create(path, Header{}, nil); err == nil {
		t.Error("Create over an existing log succeeded")
	}

	// Reopen continues the log where it ended.
	w, err = Reopen(path, l, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Append("turn/start", map[string]int{"turn": 51}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if l, err = ReadFile(path); err != nil || len(l.Events) != 51 {
		t.Fatalf("after Reopen: %v, %d events, want 51", err, len(l.Events))
	}
	if _, err := Reopen(filepath.Join(t.TempDir(), "missing"), l, nil); err == nil {
		t.Error("Reopen of a missing log succeeded")
	}
}

func TestReadErrors(t *testing.T) {
	type testCase struct {
		name, in, err string
	}
	header := `{"type":"session","version":1,"id":"a","createdAt":0,"cwd":"/","delegationDepth":0}` + "\n"
	for _, tc := range []testCase{
		{"empty", "", "x.jsonl:1: missing header"},
		{"not json", "nope\n", "x.jsonl:1: header: invalid character"},
		{"wrong type", `{"type":"event"}` + "\n", `x.jsonl:1: header: type is "event"`},
		{"unknown header key", `{"type":"session","colour":1}` + "\n", `x.jsonl:1: header: json: unknown field "colour"`},
		{"seq gap", header + `{"type":"a","seq":0,"time":0,"data":{}}` + "\n" + `{"type":"b","seq":2,"time":0,"data":{}}` + "\n", "x.jsonl:3: event: seq is 2, want 1"},
		{"no type", header + `{"seq":0,"time":0,"data":{}}` + "\n", "x.jsonl:2: event: missing type"},
		{"blank line", header + "\n", "x.jsonl:2: empty line"},
		{"trailing", header + `{"type":"a","seq":0,"time":0,"data":{}} {}` + "\n", "x.jsonl:2: event: trailing data"},
		{"repeated key in data", header + `{"type":"a","seq":0,"time":0,"data":{"text":"a","text":"b"}}` + "\n", "x.jsonl:2: $.data.text: duplicate key"},
		{"repeated key at the top", header + `{"type":"a","seq":0,"type":"b","time":0,"data":{}}` + "\n", "x.jsonl:2: $.type: duplicate key"},
		{"repeated key in the header", `{"type":"session","type":"session"}` + "\n", "x.jsonl:1: $.type: duplicate key"},
		{"nested too deep", header + `{"type":"a","seq":0,"time":0,"data":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + "}\n", "x.jsonl:2: $.data[0][0][0][0][0][0][0]…: nested deeper than 1000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(strings.NewReader(tc.in), "x.jsonl")
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("error = %v, want it to contain %q", err, tc.err)
			}
		})
	}
}

// FuzzRead checks that no input panics and that whatever parses has a
// header and contiguous seq.
func FuzzRead(f *testing.F) {
	for _, p := range corpusLogs(f) {
		b, err := os.ReadFile(p)
		if err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`{"type":"session","version":1,"id":"a","createdAt":0,"cwd":"/","delegationDepth":0}` + "\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := Read(bytes.NewReader(b), "fuzz")
		if err != nil {
			return
		}
		if l.Header.Type != "session" {
			t.Fatalf("parsed without a session header")
		}
		for i, e := range l.Events {
			if e.Seq != i {
				t.Fatalf("event %d has seq %d", i, e.Seq)
			}
		}
	})
}

// corpusLogs returns the session logs of the bundled corpus (fuzz seeds).
func corpusLogs(tb testing.TB) []string {
	tb.Helper()
	paths, _ := filepath.Glob("../../snapshots/*/session*.jsonl")
	return paths
}
