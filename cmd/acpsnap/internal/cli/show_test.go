package cli

import (
	"strings"
	"testing"
)

// TestShowOnTerminal: on a terminal show colours the transcript (thoughts
// dimmed), NO_COLOR turns the colour off, and COLUMNS sets the width.
func TestShowOnTerminal(t *testing.T) {
	type testCase struct {
		name     string
		vars     map[string]string
		want     []string
		wantNone []string
	}
	for _, tc := range []testCase{
		{"colour", map[string]string{"TERM": "xterm"}, []string{"\x1b[2mthinking: 91 = 7 * 13, so it is not prime.\x1b[0m"}, nil},
		{"NO_COLOR", map[string]string{"TERM": "xterm", "NO_COLOR": "1"}, []string{"thinking: 91 = 7 * 13, so it is not prime."}, []string{"\x1b["}},
		{"COLUMNS", map[string]string{"NO_COLOR": "1", "COLUMNS": "40"}, []string{"  thinking: 91 = 7 * 13, so it is not\r\n            prime.\r\n"}, []string{"\x1b["}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := runOnTerminal(t, tc.vars, "show", "-dir", "../../../../snapshots", "reasoning-turn")
			if code != ExitOK {
				t.Fatalf("show = exit %d:\n%s", code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the terminal lacks %q:\n%q", w, out)
				}
			}
			for _, w := range tc.wantNone {
				if strings.Contains(out, w) {
					t.Errorf("the terminal got %q:\n%q", w, out)
				}
			}
		})
	}
}
