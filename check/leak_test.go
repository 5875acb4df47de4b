package check

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/secretscan"
	"github.com/acpsnap/acpsnap/scenario"
)

// TestRecordWithoutFixtureDiffsNothing: a first recording has nothing to
// compare with, so it writes without computing a diff (a 40,000-line
// answer against empty files cost gigabytes).
func TestRecordWithoutFixtureDiffsNothing(t *testing.T) {
	dir := t.TempDir()
	var big strings.Builder
	for i := range 40000 {
		fmt.Fprintf(&big, "{\"delta\":%d}\n", i)
	}
	got := &scenario.Transcript{Stdout: []byte(big.String()), Logs: [][]byte{[]byte("{\"type\":\"session\"}\n")}}
	o := Outcome{Name: "new"}.compare(context.Background(), dir, got, Config{Mode: Record, direct: true}, rules{}, nil)
	if o.Status != Passed || o.Diff != "" || len(o.Wrote) != 2 {
		t.Fatalf("outcome %s, %d diff bytes, wrote %v; want passed, no diff, two files", o.Status, len(o.Diff), o.Wrote)
	}
}

// TestLeakedAndShown: a live transcript holding a secret value is refused
// with its place, and what an outcome shows never holds the value.
func TestLeakedAndShown(t *testing.T) {
	leaks := secretscan.New(map[string]string{"DEEPSEEK_API_KEY": "sk-test-0123456789"}, nil)
	got := &scenario.Transcript{Stdout: []byte("{}\n"), Logs: [][]byte{[]byte("{}\n{\"out\":\"DEEPSEEK_API_KEY=sk-test-0123456789\"}\n")}}
	err := leaked(leaks, "snapshots/x", got)
	want := filepath.Join("snapshots/x", scenario.SessionFile) + ":2: holds the value of DEEPSEEK_API_KEY"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "sk-test") {
		t.Fatalf("leaked = %v, want %q without the value", err, want)
	}
	cause := errors.New("agent said sk-test-0123456789\x1b[2K")
	o := shown(leaks, Outcome{Reason: cause.Error(), Err: cause, Diff: "+sk-test-0123456789\n", Stderr: "sk-test-0123456789"})
	for _, s := range []string{o.Reason, o.Err.Error(), o.Diff, o.Stderr} {
		if strings.Contains(s, "sk-test") || strings.Contains(s, "\x1b") {
			t.Errorf("shown outcome holds the value or an escape: %q", s)
		}
	}
	if !errors.Is(o.Err, cause) {
		t.Errorf("the redacted error lost its cause")
	}
}
