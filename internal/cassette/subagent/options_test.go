package subagent

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestOptionsDefaults(t *testing.T) {
	s, err := Options{}.settings()
	if err != nil {
		t.Fatal(err)
	}
	got := []any{s.storage, s.writeMode, s.timing, s.duplicates, s.redact, s.speed, s.allowRedacted, s.assertConsumed}
	want := []any{StorageMetadata, WriteCreate, TimingInstant, PolicyReject, true, 1.0, false, true}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaults (-want +got):\n%s", diff)
	}
}

func TestOptionsValidate(t *testing.T) {
	type tc struct {
		name string
		opts Options
		err  string // "" valid
	}
	for _, c := range []tc{
		{"all set", Options{RequestStorage: "full", RedactSecrets: ptr(false), RedactionPatterns: []string{"x+"}, WriteMode: "append",
			Timing: "recorded", Speed: 0.5, DuplicatePolicy: "sequence", AllowRedactedReplay: true, AssertConsumed: ptr(false)}, ""},
		{"request storage", Options{RequestStorage: "prompt"}, "requestStorage: unknown value"},
		{"write mode", Options{WriteMode: "overwrite"}, "writeMode: unknown value"},
		{"timing", Options{Timing: "real"}, "timing: unknown value"},
		{"duplicate policy", Options{DuplicatePolicy: "first"}, "duplicatePolicy: unknown value"},
		{"speed too small", Options{Timing: "recorded", Speed: 0.0001}, "speed: want a finite number"},
		{"speed negative", Options{Timing: "recorded", Speed: -1}, "speed: want a finite number"},
		{"speed infinite", Options{Timing: "recorded", Speed: math.Inf(1)}, "speed: want a finite number"},
		{"speed NaN", Options{Timing: "recorded", Speed: math.NaN()}, "speed: want a finite number"},
		{"speed without recorded timing", Options{Speed: 2}, "speed: only with timing"},
		{"invalid pattern", Options{RedactionPatterns: []string{"(unclosed"}}, "redactionPatterns[0]"},
		{"empty-matching pattern", Options{RedactionPatterns: []string{"a?"}}, "matches the empty string"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := c.opts.Validate()
			if c.err == "" {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			wantErr(t, err, c.err)
			if _, rerr := Record(cassettePath(t), c.opts); rerr == nil {
				t.Error("Record started with invalid options")
			}
		})
	}
}
