package harness

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSlug: Claude Code's per-project folder name, every character that is
// not an ASCII letter or digit as "-" (per UTF-16 unit).
func TestSlug(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/tmp/acpsnap-0a1b/workspace", "-tmp-acpsnap-0a1b-workspace"},
		{"/tmp/TestX_1/001/a.b c", "-tmp-TestX-1-001-a-b-c"},
		{"/tmp/é/😀", "-tmp-----"}, // é one unit, 😀 two
	}
	for _, tt := range tests {
		if got := slug(tt.path); got != tt.want {
			t.Errorf("slug(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestTerminalEnv(t *testing.T) {
	agent := []string{"PATH=/bin", "HOME=/h", "ACPSNAP_MODE=record", "ACPSNAP_FIXTURE=/m/session.jsonl",
		"DEEPSEEK_API_KEY=sk", "DEEPSEEK_MODEL=m", "OTHER_KEY=secret", "SCENARIO_VAR=x", "DEEPSEEKER=kept"}
	tests := []struct {
		name    string
		secrets map[string]string
		want    []string
	}{
		{"no secrets", nil, []string{"PATH=/bin", "HOME=/h", "DEEPSEEK_API_KEY=sk", "DEEPSEEK_MODEL=m", "OTHER_KEY=secret", "SCENARIO_VAR=x", "DEEPSEEKER=kept"}},
		{"secrets by name", map[string]string{"OTHER_KEY": "secret", "DEEPSEEK_API_KEY": "sk"},
			[]string{"PATH=/bin", "HOME=/h", "DEEPSEEK_MODEL=m", "SCENARIO_VAR=x", "DEEPSEEKER=kept"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, terminalEnv(agent, tt.secrets)); diff != "" {
				t.Errorf("terminal env (-want +got):\n%s", diff)
			}
		})
	}
}
