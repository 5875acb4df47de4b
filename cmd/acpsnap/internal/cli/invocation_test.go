package cli

import "testing"

func TestInvokedAs(t *testing.T) {
	type testCase struct {
		parent []string
		want   string
	}
	for _, tc := range []testCase{
		{[]string{"/usr/local/go/bin/go", "tool", "acpsnap", "run"}, "go tool acpsnap"},
		{[]string{"go", "tool", "github.com/acpsnap/acpsnap/cmd/acpsnap", "verify"}, "go tool github.com/acpsnap/acpsnap/cmd/acpsnap"},
		{[]string{"go", "run", "./cmd/acpsnap", "run", "-run", "x"}, "go run ./cmd/acpsnap"},
		{[]string{"go", "run", "-race", "-tags", "netgo", "-C", "/src", "./cmd/acpsnap", "run"}, "go run ./cmd/acpsnap"},
		{[]string{"go", "run", "-ldflags=-s", "github.com/acpsnap/acpsnap/cmd/acpsnap@v1.2.0", "run"}, "go run github.com/acpsnap/acpsnap/cmd/acpsnap@v1.2.0"},
		{[]string{"go", "test", "./..."}, "acpsnap"},
		{[]string{"go", "tool", "-n", "acpsnap"}, "acpsnap"},
		{[]string{"bash"}, "acpsnap"},
		{[]string{"/bin/sh", "-c", "acpsnap run"}, "acpsnap"},
		{nil, "acpsnap"},
	} {
		if got := invokedAs(tc.parent); got != tc.want {
			t.Errorf("invokedAs(%q) = %q, want %q", tc.parent, got, tc.want)
		}
	}
}
