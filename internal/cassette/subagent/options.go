package subagent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"regexp"
	"time"
)

// Options is the closed set of subagent cassette options. The zero value
// is the default of every option. Record uses the record options and
// Replay the replay ones; each ignores the others (they still have to be
// valid). Validate checks them all.
type Options struct {
	// RequestStorage is what an interaction stores of its request:
	// "metadata" ("": the default) stores the label, the prompt's byte
	// count and the tool filter, never the prompt; "full" also stores the
	// redacted prompt, options and output schema. Record only.
	RequestStorage string `json:"requestStorage,omitempty" yaml:"requestStorage,omitempty"`
	// RedactSecrets replaces secret-named members and credential patterns
	// with "[REDACTED]" in what is stored (nil: true). Record only.
	RedactSecrets *bool `json:"redactSecrets,omitempty" yaml:"redactSecrets,omitempty"`
	// RedactionPatterns are extra regular expressions (Go RE2 syntax,
	// matched case-insensitively) whose matches are redacted; an invalid
	// one, or one that matches the empty string, refuses to start.
	// Record only.
	RedactionPatterns []string `json:"redactionPatterns,omitempty" yaml:"redactionPatterns,omitempty"`
	// WriteMode is "create" ("": the default; an existing cassette refuses
	// to record), "truncate" (an existing cassette is replaced when the
	// new one is complete) or "append" (the existing cassette is verified
	// and its chain continued). Record only.
	WriteMode string `json:"writeMode,omitempty" yaml:"writeMode,omitempty"`
	// Timing is "instant" ("": the default; replayed outcomes return at
	// once) or "recorded" (the recorded start latency and duration are
	// reproduced, divided by Speed). Replay only.
	Timing string `json:"timing,omitempty" yaml:"timing,omitempty"`
	// Speed divides recorded delays (0: 1; otherwise finite and at least
	// 0.001). Only with Timing "recorded".
	Speed float64 `json:"speed,omitempty" yaml:"speed,omitempty"`
	// DuplicatePolicy is "reject" ("": the default; an occurrence group
	// whose recorded outcomes differ refuses the whole cassette) or
	// "sequence" (such a group is served in occurrence order). Replay only.
	DuplicatePolicy string `json:"duplicatePolicy,omitempty" yaml:"duplicatePolicy,omitempty"`
	// AllowRedactedReplay lets a result that redaction rewrote be replayed
	// (false: such a cassette refuses to replay). Replay only.
	AllowRedactedReplay bool `json:"allowRedactedReplay,omitempty" yaml:"allowRedactedReplay,omitempty"`
	// AssertConsumed makes Player.Close fail while recorded interactions
	// were not replayed (nil: true). Replay only.
	AssertConsumed *bool `json:"assertConsumed,omitempty" yaml:"assertConsumed,omitempty"`

	// Now is the recorder's clock (nil: time.Now).
	Now func() time.Time `json:"-" yaml:"-"`
	// Sleep waits d or until ctx is done (nil: a real timer). Replay with
	// Timing "recorded" only.
	Sleep func(ctx context.Context, d time.Duration) error `json:"-" yaml:"-"`
}

// The option values.
const (
	StorageMetadata = "metadata"
	StorageFull     = "full"
	WriteCreate     = "create"
	WriteTruncate   = "truncate"
	WriteAppend     = "append"
	TimingInstant   = "instant"
	TimingRecorded  = "recorded"
	PolicyReject    = "reject"
	PolicySequence  = "sequence"
)

// settings are validated Options with defaults applied.
type settings struct {
	storage, writeMode, timing, duplicates string
	redact                                 bool
	patterns                               []string
	extra                                  []*regexp.Regexp
	speed                                  float64
	allowRedacted, assertConsumed          bool
	now                                    func() time.Time
	sleep                                  func(context.Context, time.Duration) error
}

// Validate reports the first invalid option.
func (o Options) Validate() error {
	_, err := o.settings()
	return err
}

func (o Options) settings() (settings, error) {
	s := settings{
		storage: cmp.Or(o.RequestStorage, StorageMetadata), writeMode: cmp.Or(o.WriteMode, WriteCreate),
		timing: cmp.Or(o.Timing, TimingInstant), duplicates: cmp.Or(o.DuplicatePolicy, PolicyReject),
		redact: o.RedactSecrets == nil || *o.RedactSecrets, patterns: o.RedactionPatterns,
		speed: o.Speed, allowRedacted: o.AllowRedactedReplay,
		assertConsumed: o.AssertConsumed == nil || *o.AssertConsumed,
		now:            o.Now, sleep: o.Sleep,
	}
	if err := errors.Join(
		oneOf("requestStorage", s.storage, StorageMetadata, StorageFull),
		oneOf("writeMode", s.writeMode, WriteCreate, WriteTruncate, WriteAppend),
		oneOf("timing", s.timing, TimingInstant, TimingRecorded),
		oneOf("duplicatePolicy", s.duplicates, PolicyReject, PolicySequence),
	); err != nil {
		return settings{}, fmt.Errorf("subagent cassette options: %w", err)
	}
	switch {
	case s.speed == 0:
		s.speed = 1
	case math.IsNaN(s.speed) || math.IsInf(s.speed, 0) || s.speed < 0.001:
		return settings{}, fmt.Errorf("subagent cassette options: speed: want a finite number of at least 0.001, got %v", s.speed)
	case s.timing != TimingRecorded:
		return settings{}, fmt.Errorf("subagent cassette options: speed: only with timing %q", TimingRecorded)
	}
	extra, err := compilePatterns(s.patterns)
	if err != nil {
		return settings{}, fmt.Errorf("subagent cassette options: %w", err)
	}
	s.extra = extra
	if s.now == nil {
		s.now = time.Now
	}
	if s.sleep == nil {
		s.sleep = sleep
	}
	return s, nil
}

func oneOf(name, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return fmt.Errorf("%s: unknown value %q (want one of %v)", name, v, allowed)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
