package subagent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// spec is one root call of a cassette a diff test records.
type spec struct {
	label, prompt string
	child         Child
}

func cassetteOf(t *testing.T, opts Options, calls ...spec) *Cassette {
	t.Helper()
	path := cassettePath(t)
	record(t, path, opts, func(r *Recorder) {
		for _, c := range calls {
			r.Call(context.Background(), rootParent(), req(c.label, c.prompt), c.child)
		}
	})
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func failing(msg string) Child {
	return func(context.Context, *Run) (Result, error) { return Result{}, errors.New(msg) }
}

func TestDiff(t *testing.T) {
	base := []spec{{"a", "pa", returns(textResult("A"))}, {"b", "pb", returns(textResult("B"))}, {"c", "pc", failing("boom")}}
	a := cassetteOf(t, Options{}, base...)
	type tc struct {
		name    string
		opts    Options
		calls   []spec
		changes []string // "change key-label"
		drift   int
		equiv   bool
	}
	for _, c := range []tc{
		{"same", Options{}, base, nil, 0, true},
		{"timing only", Options{Now: newClock(time.Second).now}, base, nil, 0, true},
		{"one changed prompt", Options{}, []spec{base[0], {"b", "pb2", returns(textResult("B"))}, base[2]}, []string{"removed b", "added b"}, 0, false},
		{"outcome changed", Options{}, []spec{base[0], {"b", "pb", returns(textResult("B2"))}, base[2]}, []string{"outcome-changed b"}, 0, false},
		{"stop reason changed", Options{}, []spec{base[0], {"b", "pb", returns(Result{Output: textResult("B").Output, StopReason: "max_tokens"})}, base[2]}, []string{"outcome-changed b"}, 0, false},
		{"boundary changed", Options{}, []spec{base[0], base[1], {"c", "pc", returns(textResult("C"))}}, []string{"boundary-changed c"}, 0, false},
		{"error message changed", Options{}, []spec{base[0], base[1], {"c", "pc", failing("bang")}}, []string{"outcome-changed c"}, 0, false},
		{"policy drift", Options{RedactSecrets: ptr(false)}, base, nil, 1, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := cassetteOf(t, c.opts, c.calls...)
			r := Diff(a, b)
			var got []string
			for _, ch := range r.Changes {
				got = append(got, ch.Change+" "+strings.SplitN(strings.TrimPrefix(ch.Key, "root/"), "-", 2)[0])
			}
			if diff := cmp.Diff(c.changes, got); diff != "" {
				t.Errorf("changes (-want +got):\n%s", diff)
			}
			if len(r.PolicyDrift) != c.drift || r.Equivalent() != c.equiv || !r.Comparable {
				t.Errorf("drift %v, equivalent %v, comparable %v; want %d drift, equivalent %v", r.PolicyDrift, r.Equivalent(), r.Comparable, c.drift, c.equiv)
			}
			if len(r.Calls) < 3 {
				t.Errorf("Calls has %d entries, want every aligned call", len(r.Calls))
			}
			out, _ := json.Marshal(r)
			for _, body := range []string{"pb2", "B2", "boom", "bang", `"text"`} {
				if strings.Contains(string(out), body) {
					t.Errorf("the report carries %q", body)
				}
			}
		})
	}
}

func TestDiffStopBuckets(t *testing.T) {
	r := Diff(cassetteOf(t, Options{}, spec{"a", "p", returns(Result{Output: json.RawMessage(`1`), StopReason: "end_turn"})}),
		cassetteOf(t, Options{}, spec{"a", "p", returns(Result{Output: json.RawMessage(`1`), StopReason: "refusal"})}))
	if len(r.Changes) != 1 || r.Changes[0].From != "result/completed" || r.Changes[0].To != "result/refusal" {
		t.Errorf("changes %+v, want result/completed → result/refusal", r.Changes)
	}
	for reason, bucket := range map[string]string{"end_turn": "completed", "cancelled": "aborted", "max_tokens": "max-tokens",
		"length": "max-tokens", "content_filter": "refusal", "error": "error", "something-new": "other"} {
		if got := StopBucket(reason); got != bucket {
			t.Errorf("StopBucket(%q) = %q, want %q", reason, got, bucket)
		}
	}
}

// An occurrence group with differing outcomes cannot be aligned safely.
func TestDiffAmbiguousGroup(t *testing.T) {
	a := cassetteOf(t, Options{}, spec{"a", "p", returns(textResult("1"))}, spec{"a", "p", returns(textResult("2"))})
	r := Diff(a, a)
	if r.Comparable || r.Equivalent() || len(r.NotComparable) != 2 {
		t.Errorf("comparable %v, reasons %v: want not comparable on both sides", r.Comparable, r.NotComparable)
	}
}

// The same request whose context inheritance changed is not aligned by
// guess.
func TestDiffInheritanceChanged(t *testing.T) {
	record1 := func(inherits bool) *Cassette {
		path := cassettePath(t)
		p := rootParent()
		p.InheritsContext = inherits
		record(t, path, Options{}, func(r *Recorder) { call(t, r, p, req("a", "p"), returns(textResult("x"))) })
		c, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	r := Diff(record1(false), record1(true))
	if r.Comparable || len(r.NotComparable) != 1 || !strings.Contains(r.NotComparable[0], "context inheritance") {
		t.Errorf("comparable %v, reasons %v: want not comparable for the inheritance change", r.Comparable, r.NotComparable)
	}
}
