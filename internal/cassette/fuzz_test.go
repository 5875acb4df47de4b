package cassette_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/acpsnap/acpsnap/internal/cassette"
)

// FuzzParseFrame: the frame parser never panics; a line it accepts
// re-serialises to exactly itself, is its own canonical form, and carries
// the hash of its content.
func FuzzParseFrame(f *testing.F) {
	b := record(f, filepath.Join(f.TempDir(), "seed.jsonl"), 2)
	for _, l := range lines(b) {
		f.Add(bytes.TrimSuffix(l, []byte("\n")))
	}
	f.Add([]byte(`{"body":{"a":"\u00e9\n","b":[1,-0.5e+3,true,null,{}]},"hash":"sha256:00","prev":"","seq":0,"type":"x"}`))
	f.Add([]byte(`{"body":{"k\"":"<&>"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		fr, err := cassette.ParseFrame(line)
		if err != nil {
			return
		}
		if got := fr.Marshal(); !bytes.Equal(got, line) {
			t.Fatalf("accepted %q, re-serialised %q", line, got)
		}
		canon, err := cassette.Canonical(line)
		if err != nil || !bytes.Equal(canon, line) {
			t.Fatalf("accepted %q, canonical form %q (%v)", line, canon, err)
		}
		if fr.Sum() != fr.Hash {
			t.Fatalf("accepted %q with a wrong hash", line)
		}
	})
}

// FuzzCanonical: the canonical form of any valid JSON is accepted by the
// frame parser's scanner (as a body) and is a fixed point.
func FuzzCanonical(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[2,{"d":null,"c":"x"}]}`, `{"s":"\u2028\t\"\\"}`, `{"n":1E+5}`, `{"é":1,"e":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		c, err := cassette.Canonical(raw)
		if err != nil || len(c) == 0 || c[0] != '{' {
			return
		}
		c2, err := cassette.Canonical(c)
		if err != nil || !bytes.Equal(c, c2) {
			t.Fatalf("canonical %q not a fixed point: %q (%v)", c, c2, err)
		}
		fr := cassette.Frame{Type: "x", Body: json.RawMessage(c)}
		fr.Hash = fr.Sum()
		if _, err := cassette.ParseFrame(fr.Marshal()); err != nil {
			t.Fatalf("canonical body %q refused by the frame parser: %v", c, err)
		}
	})
}
