package replay

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// corpusOverrides are the committed replay.override.json files, each with
// the primary log of its scenario.
func corpusOverrides(tb testing.TB) (overrides, logs [][]byte) {
	tb.Helper()
	paths, _ := filepath.Glob("../../snapshots/*/replay.override.json")
	for _, p := range paths {
		o, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		l, err := os.ReadFile(filepath.Join(filepath.Dir(p), "session.jsonl"))
		if err != nil {
			tb.Fatal(err)
		}
		overrides, logs = append(overrides, o), append(logs, l)
	}
	return overrides, logs
}

// scriptOpts compares scripts whose nil and empty chunk lists marshal alike.
var scriptOpts = cmpopts.EquateEmpty()

// checkRoundTrip: what the package produced as a valid script, the strict
// decoder accepts and decodes back to the same script.
func checkRoundTrip(t *testing.T, what string, s Script) {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("%s: marshal: %v", what, err)
	}
	back, err := DecodeScript(bytes.NewReader(b), "again.json")
	if err != nil {
		t.Fatalf("%s does not decode strictly: %v\n%s", what, err, b)
	}
	if diff := cmp.Diff(s, back, scriptOpts); diff != "" {
		t.Fatalf("%s: decode(marshal(s)) (-want +got):\n%s", what, diff)
	}
}

// FuzzDeriveCorpus, seeded with every committed session log: Derive never
// panics, is deterministic, keeps positions in its errors, and a script it
// derives without error is one the strict decoder accepts unchanged.
func FuzzDeriveCorpus(f *testing.F) {
	for _, path := range fixtureSeeds() {
		if b, err := os.ReadFile(path); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s1, err1 := Derive(bytes.NewReader(b), "session.jsonl")
		s2, err2 := Derive(bytes.NewReader(b), "session.jsonl")
		if diff := cmp.Diff(s1, s2); diff != "" {
			t.Fatalf("Derive twice (-first +second):\n%s", diff)
		}
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("Derive twice: errors %v and %v", err1, err2)
		}
		var u *UnterminatedError
		switch {
		case err1 == nil:
			checkRoundTrip(t, "derived script", s1)
		case errors.As(err1, &u):
			if u.Index < 0 || u.Index >= len(s1) || u.Line < 2 {
				t.Fatalf("unterminated error points outside the script (%d entries): %+v", len(s1), u)
			}
			if !strings.Contains(err1.Error(), "session.jsonl:") {
				t.Fatalf("unterminated error without position: %v", err1)
			}
		default:
			if s1 != nil {
				t.Fatalf("Derive failed (%v) but returned a script", err1)
			}
			if !strings.HasPrefix(err1.Error(), "llmreplay: derive: session.jsonl:") {
				t.Fatalf("error without position: %v", err1)
			}
		}
	})
}

// FuzzOverrideCorpus, seeded with every committed replay.override.json and
// the log of its scenario: DecodeOverride never panics and keeps positions
// in its errors; Apply is deterministic, leaves its input alone, follows
// the override length rules, and yields a script the strict decoder accepts.
func FuzzOverrideCorpus(f *testing.F) {
	overrides, logs := corpusOverrides(f)
	for i := range overrides {
		f.Add(overrides[i], logs[i])
	}
	f.Fuzz(func(t *testing.T, ob, lb []byte) {
		o, err := DecodeOverride(bytes.NewReader(ob), "o.json")
		if err != nil {
			if o != nil || !strings.HasPrefix(err.Error(), "llmreplay: decode override: o.json:") {
				t.Fatalf("DecodeOverride = %v, %v; want nil and a positioned error", o, err)
			}
			return
		}
		derived, err := Derive(bytes.NewReader(lb), "session.jsonl")
		var u *UnterminatedError
		if err != nil && !errors.As(err, &u) {
			derived = Script{} // an unusable log: apply to an empty script
		}
		before, _ := json.Marshal(derived)
		got, err := o.Apply(derived)
		again, err2 := o.Apply(derived)
		if after, _ := json.Marshal(derived); !bytes.Equal(before, after) {
			t.Fatalf("Apply modified its input:\nbefore %s\nafter  %s", before, after)
		}
		if diff := cmp.Diff(got, again); diff != "" || (err == nil) != (err2 == nil) {
			t.Fatalf("Apply twice: errors %v, %v (-first +second):\n%s", err, err2, diff)
		}
		if err != nil {
			if o.Script != nil || !strings.Contains(err.Error(), "past the end") {
				t.Fatalf("Apply: %v", err)
			}
			return
		}
		if want := overriddenLen(o, len(derived)); len(got) != want {
			t.Fatalf("Apply gave %d entries, want %d", len(got), want)
		}
		checkRoundTrip(t, "overridden script", got)
	})
}

// overriddenLen is the length of a script of n entries after o, written
// from docs/format.md, "Overrides": a bare array replaces, a patch at the end appends.
func overriddenLen(o *Override, n int) int {
	if o.Script != nil {
		return len(o.Script)
	}
	for _, p := range o.Patches {
		if p.At == n {
			n++
		}
	}
	return n
}
