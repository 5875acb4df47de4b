package normalize

import (
	"bytes"
	"strings"
	"testing"
)

// TestNormalFormIsNotCopied: a text already in normal form (a committed
// fixture) normalizes to itself without a copy, so a large fixture is held
// once; a text that changes is copied, from its first change.
func TestNormalFormIsNotCopied(t *testing.T) {
	fixture := []byte(strings.Repeat(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{session:1}}","update":{"content":{"text":"hi","type":"text"},"sessionUpdate":"agent_message_chunk"}}}`+"\n", 1000))
	out, err := Stdout(fixture, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, fixture) || &out[0] != &fixture[0] || cap(out) != len(out) {
		t.Errorf("a fixture in normal form was copied (or its capacity kept)")
	}
	spaced := append([]byte(`{"b": 1, "a": 2}`+"\n"), fixture...)
	out, err = Stdout(spaced, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(out, []byte(`{"a":2,"b":1}`+"\n")) || &out[0] == &spaced[0] {
		t.Errorf("a text that changes: %.40q", out)
	}
}

// TestStdoutLines: the lines of a run's stdout normalize as their joined
// text does, and each is let go as it is read.
func TestStdoutLines(t *testing.T) {
	raw := []string{`{"id":1,"jsonrpc":"2.0","result":{"b":1, "a":2}}`, `{"jsonrpc":"2.0","method":"x","id":"agent-7"}`}
	lines := make([][]byte, len(raw))
	for i, l := range raw {
		lines[i] = []byte(l)
	}
	want, err := Stdout([]byte(strings.Join(raw, "\n")+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := StdoutLines(lines, nil)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("StdoutLines = %q, %v; want %q", got, err, want)
	}
	for i, l := range lines {
		if l != nil {
			t.Errorf("line %d kept", i)
		}
	}
}
