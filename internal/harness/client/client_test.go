package client

import (
	stdcmp "cmp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSelectLines(t *testing.T) {
	const text = "one\ntwo\nthree\n"
	n := func(i int) *int { return &i }
	tests := []struct {
		name        string
		line, limit *int
		want        string
	}{
		{"whole", nil, nil, text},
		{"from line 2", n(2), nil, "two\nthree\n"},
		{"one line", n(2), n(1), "two\n"},
		{"limit only", nil, n(2), "one\ntwo\n"},
		{"past the end", n(9), n(1), ""},
		{"line 0 is line 1", n(0), n(1), "one\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, selectLines(text, tt.line, tt.limit)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestTerminalOutputLimit(t *testing.T) {
	tests := []struct {
		name      string
		limit     int
		writes    []string
		want      string
		truncated bool
	}{
		{"no limit asked", 0, []string{"héllo ", "wörld"}, "héllo wörld", false},
		{"default cap", 0, []string{strings.Repeat("x", defaultOutputLimit), strings.Repeat("y", defaultOutputLimit+5)}, strings.Repeat("y", defaultOutputLimit), true},
		{"within", 20, []string{"héllo"}, "héllo", false},
		{"tail", 3, []string{"abc", "def"}, "def", true},
		{"character boundary", 4, []string{"héllo wörld"}, "rld", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			term := &terminal{}
			term.out.Limit = stdcmp.Or(tt.limit, defaultOutputLimit)
			for _, w := range tt.writes {
				term.append([]byte(w))
			}
			got := term.output()
			if got.Output != tt.want || got.Truncated != tt.truncated {
				t.Errorf("output %q truncated %v, want %q %v", got.Output, got.Truncated, tt.want, tt.truncated)
			}
		})
	}
}

// TestWireKeeps keeps every message the client wrote, with the count of
// the agent's lines before it; a large one without its payload.
func TestWireKeeps(t *testing.T) {
	var out strings.Builder
	seen := 0
	w := NewWire(&out, func() int { return seen })
	w.Send(map[string]any{"id": 1, "method": "session/prompt", "params": map[string]any{"sessionId": "s"}})
	seen = 3
	big := strings.Repeat("x", keepMax)
	w.Send(map[string]any{"id": "r", "result": map[string]any{"content": big}})
	w.Send(map[string]any{"id": "q", "method": "session/prompt", "params": map[string]any{"sessionId": "s", "prompt": big}})
	got := []string{}
	for _, s := range w.Sent() {
		got = append(got, strconv.Itoa(s.After)+" "+string(s.Line))
	}
	want := []string{`0 {"id":1,"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"s"}}`,
		`3 {"id":"r","jsonrpc":"2.0","result":{}}`,
		`3 {"id":"q","jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"s"}}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Sent (-want +got):\n%s", diff)
	}
	if !strings.Contains(out.String(), big) {
		t.Error("the large message did not reach the agent whole")
	}
}
