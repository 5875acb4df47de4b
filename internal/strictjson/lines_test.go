package strictjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

func TestEachNumbersLinesAndTakesLargeOnes(t *testing.T) {
	big := strings.Repeat("x", 1<<20) // far beyond bufio's 64 KiB default
	in := "a\n\n" + big + "\nlast"
	var got []string
	err := Each(strings.NewReader(in), func(n int, line []byte) error {
		got = append(got, string(rune('0'+n))+":"+string(line[:min(len(line), 3)]))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"1:a", "2:", "3:xxx", "4:las"}, got); d != "" {
		t.Errorf("lines (-want +got):\n%s", d)
	}
}

// TestScannerSplitsAsScanLines: the scanner's lines are bufio.ScanLines'
// whatever pieces the reader hands over (the split resumes its search).
func TestScannerSplitsAsScanLines(t *testing.T) {
	type testCase struct {
		name string
		in   string
	}
	long := strings.Repeat("z", 200<<10) // several reads, and a grown buffer
	pieces := map[string]func(io.Reader) io.Reader{"whole": func(r io.Reader) io.Reader { return r },
		"one byte": iotest.OneByteReader, "half": iotest.HalfReader, "data and EOF": iotest.DataErrReader}
	for _, tc := range []testCase{
		{"empty", ""},
		{"one line", "a\n"},
		{"no final newline", "a\nb"},
		{"blank lines", "\n\na\n\n"},
		{"CR LF", "a\r\nb\r\n\r\nc\r"},
		{"lone CR inside", "a\rb\n"},
		{"long lines", long + "\n" + long + "\r\nx" + long},
	} {
		want := lines(t, tc.in, bufio.ScanLines)
		for name, piece := range pieces {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				s := NewScanner(piece(strings.NewReader(tc.in)))
				var got []string
				for s.Scan() {
					got = append(got, s.Text())
				}
				if err := s.Err(); err != nil {
					t.Fatal(err)
				}
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("lines (-want +got):\n%s", d)
				}
			})
		}
	}
}

func lines(t *testing.T, in string, split bufio.SplitFunc) []string {
	t.Helper()
	s := bufio.NewScanner(strings.NewReader(in))
	s.Buffer(nil, MaxLine)
	s.Split(split)
	var out []string
	for s.Scan() {
		out = append(out, s.Text())
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// BenchmarkLongLine reads one 16 MiB line in pipe-sized pieces, as the
// harness reads an agent's stdout.
func BenchmarkLongLine(b *testing.B) {
	in := strings.Repeat("x", 16<<20) + "\n"
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		s := NewScanner(&chunks{r: strings.NewReader(in), n: 64 << 10})
		for s.Scan() {
		}
		if s.Err() != nil {
			b.Fatal(s.Err())
		}
	}
}

// chunks hands over at most n bytes per Read.
type chunks struct {
	r io.Reader
	n int
}

func (c *chunks) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

func TestEachReportsTheLineTooLong(t *testing.T) {
	in := "ok\n" + strings.Repeat("y", MaxLine+1) + "\n"
	err := Each(strings.NewReader(in), func(int, []byte) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "line 2:") {
		t.Errorf("error = %v, want one naming line 2", err)
	}
}

func TestMarshalWritesWholeLines(t *testing.T) {
	var lines []string
	for i := range 100 {
		b, err := Marshal(map[string]any{"i": i, "html": "<&>", "nl": "a\nb"})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Count(b, []byte("\n")) != 1 || b[len(b)-1] != '\n' {
			t.Fatalf("Marshal = %q: want exactly one newline, at the end", b)
		}
		lines = append(lines, strings.TrimSuffix(string(b), "\n"))
	}
	for _, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil || !strings.Contains(l, "<&>") {
			t.Fatalf("line %q: %v (want valid JSON without HTML escaping)", l, err)
		}
	}
	if b, err := Encode([]int{1}); err != nil || string(b) != "[1]" {
		t.Errorf("Encode = %q, %v; want [1] without a newline", b, err)
	}
}

// TestScannerSizedToWhatItReads: a scanner over a few bytes in memory
// starts with a buffer of their size, not 64 KiB (a run reads several
// small logs whole).
func TestScannerSizedToWhatItReads(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		s := NewScanner(strings.NewReader("{}\n{}\n"))
		for s.Scan() {
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 100<<10 {
		t.Errorf("100 scanners over 6 bytes allocated %d bytes, want less than 100 KiB", n)
	}
}
