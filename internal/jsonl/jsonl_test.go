package jsonl

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"testing"

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

func TestEachReportsTheLineTooLong(t *testing.T) {
	in := "ok\n" + strings.Repeat("y", MaxLine+1) + "\n"
	err := Each(strings.NewReader(in), func(int, []byte) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "line 2:") {
		t.Errorf("error = %v, want one naming line 2", err)
	}
}

func TestWriterWritesWholeLines(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	var wg sync.WaitGroup
	for i := range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := w.Write(map[string]any{"i": i, "html": "<&>"}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 100 {
		t.Fatalf("got %d lines, want 100", len(lines))
	}
	for _, l := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(l), &v); err != nil || !strings.Contains(l, "<&>") {
			t.Fatalf("line %q: %v (want valid JSON without HTML escaping)", l, err)
		}
	}
}
