package check

import (
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/scenario"
)

// TestClaimsConflict: two scenarios of one record run that set the
// corpus's system-prompt pin to different values conflict; the same two in
// separate runs (each its own Claims) do not: no state outlives a run.
func TestClaimsConflict(t *testing.T) {
	header := func(system string) []byte {
		return []byte(`{"type":"request/header","data":{"system":"` + system + `"}}` + "\n")
	}
	usesPin := &scenario.Transcript{Logs: [][]byte{header(pinSystem)}}
	for _, tc := range []struct {
		name    string
		shared  bool
		wantErr string
	}{
		{"one run", true, "set it to different values"},
		{"two runs", false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			claims := &Claims{}
			set := func(system string, want *scenario.Transcript) error {
				c := claims
				if !tc.shared {
					c = &Claims{}
				}
				np, err := loadNativePins(nil, root, Record, c)
				if err != nil {
					t.Fatal(err)
				}
				return np.live(&scenario.Transcript{Logs: [][]byte{header(system)}}, want)
			}
			if err := set("first prompt", nil); err != nil {
				t.Fatalf("the first scenario: %v", err)
			}
			err := set("second prompt", usesPin)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("the second scenario: %v, want no conflict", err)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
				t.Errorf("the second scenario: %v, want an error containing %q", err, tc.wantErr)
			}
		})
	}
}
