package harness

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

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
