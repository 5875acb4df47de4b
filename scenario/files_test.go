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

func TestViolationString(t *testing.T) {
	for _, tc := range []struct {
		v    Violation
		want string
	}{
		{Violation{"orphan", "orphan folder: no snapshot.yml"}, "orphan: orphan folder: no snapshot.yml"},
		{Violation{"a/session.jsonl", "a/session.jsonl:3: event: seq is 2, want 1"}, "a/session.jsonl:3: event: seq is 2, want 1"},
		{Violation{"a", "a/stdout.expected.jsonl:6: not JSON"}, "a/stdout.expected.jsonl:6: not JSON"},
		{Violation{"a/x.txt", "stray file"}, "a/x.txt: stray file"},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.v, got, tc.want)
		}
	}
}
