package mcpproxy

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// TestMainExitCodes: Main's exit codes are the command's, and what went
// wrong reaches stderr.
func TestMainExitCodes(t *testing.T) {
	dir := t.TempDir()
	type testCase struct {
		name   string
		args   []string
		want   int
		stderr string
	}
	for _, tc := range []testCase{
		{"help", []string{"-h"}, 0, "usage: acpsnap mcp-cassette"},
		{"no mode", nil, 2, `acpsnap: mcp-cassette: -mode "": want record or replay`},
		{"unknown flag", []string{"-nope"}, 2, "acpsnap: flag provided but not defined: -nope"},
		{"record without a server", []string{"-mode", "record", "-file", "c.jsonl"}, 2, "record needs the real server's command after --"},
		{"no cassette to replay", []string{"-mode", "replay", "-file", filepath.Join(dir, "missing.jsonl")}, 1, "missing.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stderr strings.Builder
			in, out := io.NopCloser(strings.NewReader("")), discardCloser{io.Discard}
			got := Main(context.Background(), tc.args, in, out, &stderr)
			if got != tc.want || !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("Main(%q) = %d, stderr:\n%s\nwant %d and %q", tc.args, got, stderr.String(), tc.want, tc.stderr)
			}
		})
	}
}

type discardCloser struct{ io.Writer }

func (discardCloser) Close() error { return nil }
