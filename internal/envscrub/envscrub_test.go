package envscrub

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScrub(t *testing.T) {
	in := []string{"PATH=/bin", "DEEPSEEK_API_KEY=k", "ACPSNAP_MODE=record", "deepseek_x=1", "HOME=/h",
		"ACPSNAP=1", "XDEEPSEEK_Y=1", "DEEPSEEKER=kept", "OTHER_KEY=secret"}
	type testCase struct {
		name  string
		names []string
		want  []string
	}
	for _, tc := range []testCase{
		{"prefixes only", nil, []string{"PATH=/bin", "HOME=/h", "ACPSNAP=1", "XDEEPSEEK_Y=1", "DEEPSEEKER=kept", "OTHER_KEY=secret"}},
		{"and named secrets", []string{"OTHER_KEY"}, []string{"PATH=/bin", "HOME=/h", "ACPSNAP=1", "XDEEPSEEK_Y=1", "DEEPSEEKER=kept"}},
	} {
		if diff := cmp.Diff(tc.want, Scrub(in, tc.names...)); diff != "" {
			t.Errorf("%s: Scrub (-want +got):\n%s", tc.name, diff)
		}
	}
}
