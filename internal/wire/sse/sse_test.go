package sse

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

// readAll returns every event of r and the error that ended the reading
// (nil for io.EOF).
func readAll(r io.Reader) ([]Event, error) {
	rd := NewReader(r)
	var events []Event
	for {
		ev, err := rd.Next()
		if err == io.EOF {
			return events, nil
		}
		if err != nil {
			return events, err
		}
		events = append(events, ev)
	}
}

// dispatched returns the data of the events EventSource would dispatch.
func dispatched(events []Event) []string {
	var data []string
	for _, ev := range events {
		if ev.HasData() {
			data = append(data, ev.Data())
		}
	}
	return data
}

func TestReaderData(t *testing.T) {
	long := strings.Repeat("x", 100<<10) // longer than the bufio buffer
	type testCase struct {
		name string
		in   string
		want []string
	}
	tests := []testCase{
		{"one event", "data: {}\n\n", []string{"{}"}},
		{"no space after the colon", "data:{}\n\n", []string{"{}"}},
		{"only one space stripped", "data:  a\n\n", []string{" a"}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []string{"a", "b"}},
		{"CR", "data: a\r\rdata: b\r\r", []string{"a", "b"}},
		{"multi-line data", "data: a\ndata: b\n\n", []string{"a\nb"}},
		{"empty data line", "data:\n\n", []string{""}},
		{"comments and blank lines", ": keep-alive\n\n\n: x\ndata: a\n\n", []string{"a"}},
		{"other fields ignored", "event: message\nid: 7\nretry: 10\ndata: a\n\n", []string{"a"}},
		{"line without colon is a field without value", "data\nfoo\ndata: a\n\n", []string{"\na"}},
		{"event cut off by EOF dispatched", "data: a\n\ndata: b\n", []string{"a", "b"}},
		{"last line cut off by EOF dispatched", "data: a\n\ndata: b", []string{"a", "b"}},
		{"multi-line event cut off by EOF", "data: a\ndata: b\r\n", []string{"a\nb"}},
		{"[DONE] cut off by EOF after CR", "data: [DONE]\r", []string{"[DONE]"}},
		{"comment at EOF dispatches nothing", "data: a\n\n: bye", []string{"a"}},
		{"long last line cut off by EOF", "data: " + long, []string{long}},
		{"long line", "data: " + long + "\n\n", []string{long}},
		{"empty", "", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				events, err := readAll(r)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tc.want, dispatched(events)); diff != "" {
					t.Errorf("data (-want +got):\n%s", diff)
				}
				if got := string(concat(events)); got != tc.in {
					t.Errorf("bytes = %q, want %q", got, tc.in)
				}
			}
		})
	}
}

func concat(events []Event) []byte {
	var b []byte
	for _, ev := range events {
		b = ev.AppendTo(b)
	}
	return b
}

// TestRoundTripRecorded: parse then write gives the recorded bytes back,
// for the traffic of every dialect and the framing's corner cases.
func TestRoundTripRecorded(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.sse")
	if len(files) < 4 {
		t.Fatalf("testdata has %d streams, want 4", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			want, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			events, err := readAll(bytes.NewReader(want))
			if err != nil {
				t.Fatal(err)
			}
			if got := concat(events); !bytes.Equal(got, want) {
				t.Errorf("round trip differs:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestEventFields(t *testing.T) {
	b, _ := os.ReadFile("testdata/edge.sse")
	events, err := readAll(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	type view struct {
		Type, Data string
		HasData    bool
	}
	var got []view
	for _, ev := range events {
		got = append(got, view{ev.Type(), ev.Data(), ev.HasData()})
	}
	want := []view{
		{"multi", "line one\nline two\n", true},
		{"", "", false}, // the stray blank line
		{"", "cr ends", true},
		{"", "cut off", true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

func TestNew(t *testing.T) {
	type testCase struct {
		ev   Event
		want string
	}
	for _, tc := range []testCase{
		{New("ping", `{"type":"ping"}`), "event: ping\ndata: {\"type\":\"ping\"}\n\n"},
		{New("", "a\nb"), "data: a\ndata: b\n\n"},
		{Comment(" keep-alive"), ": keep-alive\n\n"},
	} {
		if got := string(tc.ev.Bytes()); got != tc.want {
			t.Errorf("Bytes() = %q, want %q", got, tc.want)
		}
		events, err := readAll(strings.NewReader(tc.want))
		if err != nil || len(events) != 1 {
			t.Fatalf("read back: %v, %d events", err, len(events))
		}
		if diff := cmp.Diff(tc.ev, events[0]); diff != "" {
			t.Errorf("read back (-want +got):\n%s", diff)
		}
	}
}

func TestReaderErrors(t *testing.T) {
	boom := errors.New("boom")
	got, err := readAll(io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(boom)))
	if diff := cmp.Diff([]string{"a"}, dispatched(got)); diff != "" || err != boom {
		t.Errorf("events (-want +got):\n%s\nerror = %v, want %v", diff, err, boom)
	}
	huge := "data: " + strings.Repeat("x", MaxEventSize+1) + "\n\n"
	if _, err := readAll(strings.NewReader(huge)); err != ErrEventTooLarge {
		t.Errorf("event over the limit: error = %v, want %v", err, ErrEventTooLarge)
	}
	lines := strings.Repeat("data: "+strings.Repeat("x", 1<<20)+"\n", 17) + "\n"
	if _, err := readAll(strings.NewReader(lines)); err != ErrEventTooLarge {
		t.Errorf("data lines over the limit: error = %v, want %v", err, ErrEventTooLarge)
	}
}

// FuzzReader: reading never panics and always gives the input back.
func FuzzReader(f *testing.F) {
	files, _ := filepath.Glob("testdata/*.sse")
	for _, file := range files {
		b, _ := os.ReadFile(file)
		f.Add(b)
	}
	f.Add([]byte("data\r\r\n\n\r:x"))
	f.Fuzz(func(t *testing.T, in []byte) {
		events, err := readAll(bytes.NewReader(in))
		if err != nil {
			t.Fatal(err)
		}
		if got := concat(events); !bytes.Equal(got, in) {
			t.Errorf("round trip differs:\n got %q\nwant %q", got, in)
		}
	})
}
