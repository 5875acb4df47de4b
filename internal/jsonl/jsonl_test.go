package jsonl

import (
	"bytes"
	"encoding/json"
	"strings"
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
	if b, err := Value([]int{1}); err != nil || string(b) != "[1]" {
		t.Errorf("Value = %q, %v; want [1] without a newline", b, err)
	}
}
