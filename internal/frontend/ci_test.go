package frontend

import (
	"strings"
	"testing"
)

func TestCI(t *testing.T) {
	for v, want := range map[string]bool{
		"": false, "0": false, "false": false, "FALSE": false, " false ": false,
		"1": true, "true": true, "yes": true, "woodpecker": true,
	} {
		if got := CI(v); got != want {
			t.Errorf("CI(%q) = %v, want %v", v, got, want)
		}
	}
}

// TestWriteRefused: in CI a write of fixtures needs the force flag, and
// pending files are refused even forced; outside CI everything may write.
func TestWriteRefused(t *testing.T) {
	fixtures := Write{What: "update", Fixtures: true, ForceFlag: "-force"}
	pending := Write{What: "run -pending", Pending: true, ForceFlag: "-acpsnap.force"}
	for _, tc := range []struct {
		name  string
		w     Write
		ci    string
		force bool
		want  string // in the error; "": allowed
	}{
		{"outside CI", fixtures, "", false, ""},
		{"CI=false", pending, "false", false, ""},
		{"fixtures in CI", fixtures, "true", false, "update writes fixtures and CI is set: refusing (pass -force to write anyway)"},
		{"fixtures in CI, forced", fixtures, "true", true, ""},
		{"pending in CI", pending, "1", false, "refusing, even with -acpsnap.force (CI never writes them)"},
		{"pending in CI, forced", pending, "1", true, "refusing, even with -acpsnap.force"},
		{"replay in CI", Write{What: "run"}, "1", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := WriteRefused(tc.w, tc.ci, tc.force)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("WriteRefused = %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("WriteRefused = %v, want an error with %q", err, tc.want)
			}
		})
	}
}
