package agentenv_test

import (
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/agentenv"
)

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ env, want string }{
		{"ACPSNAP_MODE=bogus", `ACPSNAP_MODE="bogus": want replay, record or unset`},
		{"ACPSNAP_PERMISSION=never", `ACPSNAP_PERMISSION="never"`},
		{"ACPSNAP_MODE=replay", "no ACPSNAP_FIXTURE"},
	} {
		if _, err := agentenv.Load(getenv([]string{tc.env})); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%s) = %v, want %q", tc.env, err, tc.want)
		}
	}
	if a, err := agentenv.Load(getenv(nil)); err != nil || a.Mode != "" {
		t.Errorf("outside acpsnap: %+v, %v", a, err)
	}
}

func getenv(env []string) func(string) string {
	return func(k string) string {
		for _, kv := range env {
			if name, v, ok := strings.Cut(kv, "="); ok && name == k {
				return v
			}
		}
		return ""
	}
}
