package subagent

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/cassette"
)

// sample records a nested cassette and returns its policy and
// interactions: root → outer (→ inner), root → other.
func sample(t *testing.T) (Policy, []Interaction) {
	t.Helper()
	path := cassettePath(t)
	record(t, path, Options{}, func(r *Recorder) {
		call(t, r, rootParent(), req("outer", "p"), func(ctx context.Context, run *Run) (Result, error) {
			run.Started()
			call(t, r, Parent{Path: run.Key, Depth: 1}, req("inner", "q"), returns(textResult("in")))
			return textResult("out"), nil
		})
		call(t, r, rootParent(), req("other", "p"), returns(textResult("o")))
	})
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return c.Policy, c.Interactions
}

// writeRaw writes a cassette whose frames pass the protocol but whose
// bodies are what the test says.
func writeRaw(t *testing.T, policy any, bodies ...any) string {
	t.Helper()
	path := cassettePath(t)
	w, err := cassette.Create(path, cassette.Kind{Name: Name, Types: []string{FrameInteraction}, Policy: func(json.RawMessage) error { return nil }}, policy)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range bodies {
		if err := w.Append(FrameInteraction, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Complete(); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadRefuses(t *testing.T) {
	pol, its := sample(t)
	type tc struct {
		name   string
		mutate func(p *Policy, its []Interaction) []any
		err    string
	}
	asAny := func(its []Interaction) []any {
		var out []any
		for i := range its {
			out = append(out, its[i])
		}
		return out
	}
	with := func(f func(p *Policy, its []Interaction)) func(*Policy, []Interaction) []any {
		return func(p *Policy, its []Interaction) []any { f(p, its); return asAny(its) }
	}
	for _, c := range []tc{
		{"admission gap", with(func(_ *Policy, its []Interaction) { its[2].Admission = 7 }), "$.body.admission: want 3"},
		{"admission repeated", with(func(_ *Policy, its []Interaction) { its[2].Admission = 2 }), "$.body.admission"},
		{"unknown parent", with(func(_ *Policy, its []Interaction) { its[1].Parent = "root/ghost-000000000000~1" }), "$.body.parent"},
		{"key not derived", with(func(_ *Policy, its []Interaction) { its[2].Key = "root/other-000000000000~1" }), "$.body.key"},
		{"occurrence skipped", with(func(_ *Policy, its []Interaction) { its[2].Occurrence = 2 }), "$.body.occurrence: want 1"},
		{"bad fingerprint", with(func(_ *Policy, its []Interaction) { its[0].RequestFingerprint = "sha256:00" }), "$.body.requestFingerprint"},
		{"storage disagrees with the header", with(func(p *Policy, _ []Interaction) { p.RequestStorage = StorageFull }), "$.body.request.storage"},
		{"metadata request with a prompt", with(func(_ *Policy, its []Interaction) { its[0].Request.Prompt = ptr("leak") }), "metadata storage holds no prompt"},
		{"unknown outcome", with(func(_ *Policy, its []Interaction) { its[0].Outcome.Kind = "maybe" }), "$.body.outcome.kind"},
		{"result and error", with(func(_ *Policy, its []Interaction) { its[0].Outcome.Error = &RecordedError{Name: "E"} }), "$.body.outcome.error"},
		{"started but never ran", with(func(_ *Policy, its []Interaction) { its[0].Outcome.StartMillis = -1 }), "$.body.outcome.startMillis"},
		{"unknown member", func(_ *Policy, its []Interaction) []any {
			m := map[string]any{}
			b, _ := json.Marshal(its[0])
			json.Unmarshal(b, &m)
			m["prompt"] = "smuggled"
			return []any{m}
		}, "$.body.prompt: unknown member"},
		{"missing member", func(_ *Policy, its []Interaction) []any {
			m := map[string]any{}
			b, _ := json.Marshal(its[0])
			json.Unmarshal(b, &m)
			delete(m, "redacted")
			return []any{m}
		}, "a member is missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := pol
			cp := append([]Interaction{}, its...)
			bodies := c.mutate(&p, cp)
			path := writeRaw(t, p, bodies...)
			_, err := Load(path)
			wantErr(t, err, c.err)
			if strings.Contains(err.Error(), "smuggled") || strings.Contains(err.Error(), "leak") {
				t.Errorf("the error quotes a body: %v", err)
			}
		})
	}
}

func TestLoadRefusesPolicy(t *testing.T) {
	for _, p := range []any{
		map[string]any{"requestStorage": "metadata", "redactSecrets": true, "redactionPatterns": 0, "extra": 1},
		map[string]any{"requestStorage": "prompt", "redactSecrets": true, "redactionPatterns": 0},
		map[string]any{"requestStorage": "metadata", "redactSecrets": true, "redactionPatterns": 2},
		map[string]any{"requestStorage": "metadata", "redactionPatterns": 0},
	} {
		if _, err := Load(writeRaw(t, p)); err == nil || !strings.Contains(err.Error(), "$.body.policy") {
			t.Errorf("policy %v: %v, want a policy error", p, err)
		}
	}
}

// The protocol's trailer makes a removed suffix visible, which a format
// without one cannot see.
func TestLoadRefusesRemovedSuffix(t *testing.T) {
	path := cassettePath(t)
	record(t, path, Options{}, func(r *Recorder) {
		call(t, r, rootParent(), req("a", "p"), returns(textResult("a")))
		call(t, r, rootParent(), req("b", "p"), returns(textResult("b")))
	})
	data := readFile(t, path)
	lines := strings.SplitAfter(data, "\n")
	cut := strings.Join(lines[:2], "") // the header and the first interaction: a valid prefix
	if err := os.WriteFile(path, []byte(cut), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	wantErr(t, err, "missing complete trailer")
}

func TestSummaries(t *testing.T) {
	path := cassettePath(t)
	record(t, path, Options{Now: newClock(time.Millisecond).now}, func(r *Recorder) {
		call(t, r, rootParent(), req("a", "secret prompt"), returns(textResult("secret result")))
		r.Call(context.Background(), rootParent(), req("b", "p"), failing("secret error"))
	})
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s := c.Summaries()
	got := []string{s[0].Outcome, s[1].Outcome}
	if diff := cmp.Diff([]string{"result/completed", "start-error"}, got); diff != "" {
		t.Errorf("outcomes (-want +got):\n%s", diff)
	}
	if s[0].StartMillis != 1 || s[0].DurationMillis != 2 || s[1].StartMillis != -1 {
		t.Errorf("timing %+v", s)
	}
	b, _ := json.Marshal(s)
	if strings.Contains(string(b), "secret") {
		t.Errorf("a summary carries a body: %s", b)
	}
}
