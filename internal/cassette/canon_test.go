package cassette

import (
	"bytes"
	"testing"
)

// FuzzScannerAgrees: what the one-pass scanner accepts as canonical is
// exactly what canonicalSlow (strictjson, encoding/json) produces, and what
// canonicalSlow produces the scanner accepts.
func FuzzScannerAgrees(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null,"x"]}`, `{"b":1,"a":2}`, `"\u2028"`, "\"\u2028\"", `"\u001f\b"`, `"\/"`, `1.50e+3`, `-0`, `01`, `{"a":1,"a":1}`, `{"é":1,"z":2}`, `" "`, `[1, 2]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		slow, slowErr := canonicalSlow(raw)
		_, scanErr := scanCanonical(raw, nil)
		if scanErr == nil && (slowErr != nil || !bytes.Equal(slow, raw)) {
			t.Fatalf("scanner accepts %q, canonical form is %q (%v)", raw, slow, slowErr)
		}
		if slowErr == nil {
			if _, err := scanCanonical(slow, nil); err != nil {
				t.Fatalf("canonical %q of %q refused by the scanner: %v", slow, raw, err)
			}
		}
	})
}
