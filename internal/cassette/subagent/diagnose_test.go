package subagent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Each miss gets exactly its reason, candidates in admission order, and
// leaves the player as it was: the corrected call still matches after.
func TestMismatchReasons(t *testing.T) {
	path := cassettePath(t)
	var outerKey string
	record(t, path, Options{}, func(r *Recorder) {
		call(t, r, rootParent(), req("explore", "find the bug"), func(ctx context.Context, run *Run) (Result, error) {
			run.Started()
			outerKey = run.Key
			return textResult("found"), nil
		})
		call(t, r, rootParent(), req("review", "review it"), returns(textResult("fine")))
	})
	asked := rootParent()
	asked.PermissionMode = "ask"
	type tc struct {
		name   string
		parent Parent
		req    Request
		reason string
	}
	for _, c := range []tc{
		{"request changed", rootParent(), req("explore", "find the other bug"), ReasonRequestChanged},
		{"parent context changed", asked, req("explore", "find the bug"), ReasonParentContextChanged},
		{"both changed", asked, req("explore", "find the other bug"), ReasonParentAndRequestChanged},
		{"parent not found", Parent{Path: outerKey + "/nested-000000000000~1"}, req("explore", "find the bug"), ReasonParentNotFound},
		{"no calls under a recorded call", Parent{Path: outerKey, Depth: 1}, req("deeper", "x"), ReasonParentNotFound},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := replay(t, path, Options{})
			d, err := p.Diagnose(c.parent, c.req)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Call(context.Background(), c.parent, c.req, mustNotRun(t))
			var me *MismatchError
			if !errors.As(err, &me) {
				t.Fatalf("Call = %v, want a *MismatchError", err)
			}
			if diff := cmp.Diff(d, me.Diagnostic); diff != "" {
				t.Errorf("Diagnose and Call disagree (-diagnose +call):\n%s", diff)
			}
			if me.Diagnostic.Reason != c.reason {
				t.Errorf("reason = %q, want %q", me.Diagnostic.Reason, c.reason)
			}
			var admissions []int
			for _, cand := range me.Diagnostic.Candidates {
				admissions = append(admissions, cand.Admission)
			}
			want := []int{1, 2}
			if c.reason == ReasonParentNotFound {
				want = nil
			}
			if diff := cmp.Diff(want, admissions); diff != "" {
				t.Errorf("candidates (-want +got):\n%s", diff)
			}
			if strings.Contains(err.Error(), "find the") {
				t.Errorf("the error quotes the prompt: %v", err)
			}
			// nothing was consumed: both recorded calls still replay
			call(t, p, rootParent(), req("explore", "find the bug"), mustNotRun(t))
			call(t, p, rootParent(), req("review", "review it"), mustNotRun(t))
			if err := p.Close(); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestGroupExhaustedAndDiagnoseDoesNotConsume(t *testing.T) {
	path := cassettePath(t)
	record(t, path, Options{}, func(r *Recorder) {
		call(t, r, rootParent(), req("x", "p"), returns(textResult("ok")))
	})
	p := replay(t, path, Options{})
	for range 3 {
		d, err := p.Diagnose(rootParent(), req("x", "p"))
		if err != nil || d.Reason != "" || d.Match == nil || d.Match.Admission != 1 {
			t.Fatalf("Diagnose = %+v %v, want a match of admission 1", d, err)
		}
	}
	call(t, p, rootParent(), req("x", "p"), nil)
	d, _ := p.Diagnose(rootParent(), req("x", "p"))
	if d.Reason != ReasonGroupExhausted || len(d.Candidates) != 1 || !d.Candidates[0].Consumed {
		t.Errorf("after the call: %+v, want group-exhausted with one consumed candidate", d)
	}
}
