package check

import "testing"

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
