package scenario

import "testing"

func TestOwned(t *testing.T) {
	for name, want := range map[string]bool{"HOME": true, "TMPDIR": true, "TZ": true, "ACPSNAP_X": true, "SOME_VAR": false} {
		if owned(name) != want {
			t.Errorf("owned(%s) = %v", name, !want)
		}
	}
}
