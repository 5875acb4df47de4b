package scenario

import "testing"

func TestChildIndex(t *testing.T) {
	for name, want := range map[string]int{
		"session.1.jsonl": 1, "session.12.jsonl": 12, "session.0.jsonl": 0, "session.01.jsonl": 0,
		"session.jsonl": 0, "session.x.jsonl": 0, "session.-1.jsonl": 0, "session.1.json": 0, "input.json": 0,
	} {
		if got := ChildIndex(name); got != want {
			t.Errorf("ChildIndex(%q) = %d, want %d", name, got, want)
		}
	}
}
