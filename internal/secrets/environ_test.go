package secrets

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScrub(t *testing.T) {
	in := []string{"PATH=/bin", "DEEPSEEK_API_KEY=k", "ACPSNAP_MODE=record", "deepseek_x=1", "HOME=/h",
		"ACPSNAP=1", "XDEEPSEEK_Y=1", "DEEPSEEKER=kept", "OTHER_KEY=secret"}
	type testCase struct {
		name     string
		prefixes []string
		names    []string
		want     []string
	}
	for _, tc := range []testCase{
		{"acpsnap's own only", nil, nil, []string{"PATH=/bin", "DEEPSEEK_API_KEY=k", "deepseek_x=1", "HOME=/h", "ACPSNAP=1", "XDEEPSEEK_Y=1", "DEEPSEEKER=kept", "OTHER_KEY=secret"}},
		{"a provider's prefix, any case", []string{"DEEPSEEK_"}, nil, []string{"PATH=/bin", "HOME=/h", "ACPSNAP=1", "XDEEPSEEK_Y=1", "DEEPSEEKER=kept", "OTHER_KEY=secret"}},
		{"and named secrets", []string{"DEEPSEEK_"}, []string{"OTHER_KEY"}, []string{"PATH=/bin", "HOME=/h", "ACPSNAP=1", "XDEEPSEEK_Y=1", "DEEPSEEKER=kept"}},
		{"names only", nil, []string{"DEEPSEEK_API_KEY"}, []string{"PATH=/bin", "deepseek_x=1", "HOME=/h", "ACPSNAP=1", "XDEEPSEEK_Y=1", "DEEPSEEKER=kept", "OTHER_KEY=secret"}},
	} {
		if diff := cmp.Diff(tc.want, Scrub(in, tc.prefixes, tc.names...)); diff != "" {
			t.Errorf("%s: Scrub (-want +got):\n%s", tc.name, diff)
		}
	}
}
