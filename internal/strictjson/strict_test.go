package strictjson

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestScanString(t *testing.T) {
	type result struct {
		End          int
		Decode       bool
		Noncanonical string
		Err          string
	}
	for _, tc := range []struct {
		name, in string
		want     result
	}{
		{"plain", `"abc"x`, result{End: 5}},
		{"utf-8", `"武汉"`, result{End: 8}},
		{"short escape", `"a\nb"`, result{End: 6, Decode: true}},
		{"control as u00xx", `"\u001f"`, result{End: 8, Decode: true}},
		{"line separator escaped", `"\u2028"`, result{End: 8, Decode: true}},
		{"slash escape", `"\/"`, result{End: 4, Decode: true, Noncanonical: EscapeNotCanon}},
		{"letter as u0041", `"\u0041"`, result{End: 8, Decode: true, Noncanonical: EscapeNotCanon}},
		{"newline as u000a", `"\u000a"`, result{End: 8, Decode: true, Noncanonical: EscapeNotCanon}},
		{"uppercase hex", `"\u001F"`, result{End: 8, Decode: true, Noncanonical: EscapeNotCanon}},
		{"invalid utf-8", "\"\xff\"", result{End: 3, Decode: true, Noncanonical: InvalidUTF8}},
		{"raw line separator", "\"\u2028\"", result{End: 5, Noncanonical: LineSeparator}},
		{"unterminated", `"abc`, result{Err: "unterminated string"}},
		{"bad escape", `"\x"`, result{Err: "invalid string escape"}},
		{"bad hex", `"\u12g4"`, result{Err: "invalid string escape"}},
		{"cut escape", `"\u12`, result{Err: "unterminated string escape"}},
		{"control", "\"a\tb\"", result{Err: "control character in a string"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ScanString([]byte(tc.in), 0)
			got := result{End: s.End, Decode: s.Decode, Noncanonical: s.Noncanonical}
			if err != nil {
				got = result{Err: err.Msg}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestScanNumber(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"0", ""}, {"-0", ""}, {"1.5e+10", ""}, {"-12E3", ""}, {"10", ""},
		{"01", "number with a leading zero"}, {"-01", "number with a leading zero"},
		{"-", "invalid number"}, {"1.", "invalid number fraction"}, {"1e", "invalid number exponent"},
	} {
		end, err := ScanNumber([]byte(tc.in), 0)
		got := ""
		if err != nil {
			got = err.Msg
		} else if end != len(tc.in) {
			got = "ends early"
		}
		if got != tc.err {
			t.Errorf("ScanNumber(%q) = %q, want %q", tc.in, got, tc.err)
		}
	}
}

// FuzzScanString: ScanString accepts exactly the strings encoding/json
// accepts; a string it says needs no decoding holds its value as it is,
// one it calls canonical is what AppendQuote writes, and AppendString
// finds the same and decodes what needs decoding as encoding/json does.
func FuzzScanString(f *testing.F) {
	for _, s := range []string{`"a"`, `"\u2028\n"`, "\"\xff\"", `"\/"`, `"\u001F"`, `"abc`, `"\ud83d\ude00x\ud800"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 || b[0] != '"' {
			return
		}
		s, err := ScanString(b, 0)
		if err != nil {
			if json.Valid(b) {
				t.Fatalf("%q: %s, but encoding/json accepts it", b, err.Msg)
			}
			return
		}
		raw := b[:s.End]
		if !json.Valid(raw) {
			t.Fatalf("%q accepted, encoding/json refuses it", raw)
		}
		var v string
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		if !s.Decode && v != string(raw[1:len(raw)-1]) {
			t.Fatalf("%q: no decoding needed, but its value is %q", raw, v)
		}
		if canon := bytes.Equal(AppendQuote(nil, []byte(v)), raw); canon != (s.Noncanonical == "") {
			t.Fatalf("%q: canonical %v, noncanonical %q", raw, canon, s.Noncanonical)
		}
		if e := PlainEnd(b, 0); e > 0 && (e != s.End || s.Decode || s.Noncanonical != "") {
			t.Fatalf("%q: PlainEnd %d, ScanString %+v", raw, e, s)
		}
		dst, s2, err := AppendString([]byte("x"), b, 0)
		if err != nil || s2 != s {
			t.Fatalf("%q: AppendString found %+v, %v; ScanString %+v", raw, s2, err, s)
		}
		if s.Decode && string(dst) != "x"+v || !s.Decode && string(dst) != "x" {
			t.Fatalf("%q: AppendString appended %q, want %q (decode %v)", raw, dst[1:], v, s.Decode)
		}
	})
}

// TestScanStringAllocates: checking a string with escapes copies nothing
// (the cassette's hot path); only AppendString writes the value.
func TestScanStringAllocates(t *testing.T) {
	b := []byte(`"a\nb\u00e9\ud83d\ude00 c"`)
	if n := testing.AllocsPerRun(100, func() { _, _ = ScanString(b, 0) }); n != 0 {
		t.Errorf("ScanString allocates %v times, want 0", n)
	}
}
