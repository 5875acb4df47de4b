package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/acpsnap/acpsnap/internal/cassette/subagent"
)

// diffCall is one root child call of a test cassette.
type diffCall struct{ label, prompt, output string }

func writeSubagentCassette(t *testing.T, name string, calls ...diffCall) string {
	t.Helper()
	return writeSubagentCassetteWith(t, name, subagent.Options{}, calls...)
}

func writeSubagentCassetteWith(t *testing.T, name string, opts subagent.Options, calls ...diffCall) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	r, err := subagent.Record(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	parent := subagent.Parent{Cwd: "$CWD", PermissionMode: "default"}
	for _, c := range calls {
		out, _ := json.Marshal(c.output)
		_, err := r.Call(context.Background(), parent, subagent.Request{Label: c.label, Prompt: c.prompt},
			func(ctx context.Context, run *subagent.Run) (subagent.Result, error) {
				run.Started()
				return subagent.Result{Output: out, StopReason: "end_turn"}, nil
			})
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func runDiff(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	code := e.cassetteDiff(args)
	return code, out.String(), errb.String()
}

func TestCassetteDiffExitCodes(t *testing.T) {
	base := []diffCall{{"explore", "secret prompt one", "secret result one"}, {"review", "secret prompt two", "secret result two"}}
	a := writeSubagentCassette(t, "a.jsonl", base...)
	same := writeSubagentCassette(t, "same.jsonl", base...)
	changed := writeSubagentCassette(t, "changed.jsonl", base[0], diffCall{"review", "secret prompt three", "secret result two"})
	ambiguous := writeSubagentCassette(t, "ambiguous.jsonl", diffCall{"x", "p", "1"}, diffCall{"x", "p", "2"})
	corrupt := filepath.Join(t.TempDir(), "corrupt.jsonl")
	data, _ := os.ReadFile(a)
	os.WriteFile(corrupt, bytes.Replace(data, []byte(`"admission":1`), []byte(`"admission":9`), 1), 0o644)

	type tc struct {
		name   string
		args   []string
		code   int
		stdout []string // each must appear
		stderr string
	}
	for _, c := range []tc{
		{"equivalent", []string{a, same}, 0, []string{"equivalent", "2 calls aligned, 0 changed"}, ""},
		{"one changed prompt", []string{a, changed}, 1, []string{"different", "removed          root/review-", "added            root/review-", "3 calls aligned, 2 changed"}, ""},
		{"show calls", []string{"-show-calls", a, changed}, 1, []string{"same             root/explore-"}, ""},
		{"flags after the files", []string{a, changed, "-show-calls"}, 1, []string{"same             root/explore-"}, ""},
		{"not safely comparable", []string{ambiguous, ambiguous}, 1, []string{"not safely comparable", "ambiguous group"}, ""},
		{"one file", []string{a}, 2, nil, "want two cassettes"},
		{"unknown flag", []string{"-x", a, same}, 2, nil, "flag provided but not defined"},
		{"help", []string{"-h"}, 0, nil, "usage: acpsnap cassette diff A B"},
		{"three files", []string{a, same, changed}, 2, nil, "acpsnap: cassette diff: want two cassettes, got 3"},
		{"missing file", []string{a, filepath.Join(t.TempDir(), "nope.jsonl")}, 2, nil, "cannot read"},
		{"damaged file", []string{a, corrupt}, 2, nil, "corrupt.jsonl"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errs := runDiff(c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, c.code, out, errs)
			}
			for _, s := range c.stdout {
				if !strings.Contains(out, s) {
					t.Errorf("stdout lacks %q:\n%s", s, out)
				}
			}
			if c.stderr != "" && !strings.Contains(errs, c.stderr) {
				t.Errorf("stderr lacks %q:\n%s", c.stderr, errs)
			}
			if strings.Contains(out+errs, "secret") || strings.Contains(out+errs, "end_turn") {
				t.Errorf("a prompt, a result or a raw stop reason reached the output:\n%s%s", out, errs)
			}
			if strings.Contains(out+errs, string(filepath.Separator)+"TestCassetteDiff") {
				t.Errorf("an absolute path reached the output:\n%s%s", out, errs)
			}
		})
	}
	// the changed prompt names that call only
	_, out, _ := runDiff(a, changed)
	if strings.Contains(out, "explore") {
		t.Errorf("the unchanged call is reported:\n%s", out)
	}
}

func TestCassetteDiffJSON(t *testing.T) {
	a := writeSubagentCassette(t, "a.jsonl", diffCall{"x", "p", "1"})
	b := writeSubagentCassette(t, "b.jsonl", diffCall{"x", "p", "2"})
	code, out, _ := runDiff("-json", a, b)
	var r struct {
		Equivalent bool
		Comparable bool
		Changes    []subagent.Call
		Calls      []subagent.Call
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if code != 1 || r.Equivalent || !r.Comparable || len(r.Changes) != 1 || r.Changes[0].Change != subagent.ChangeOutcome || r.Calls != nil {
		t.Errorf("exit %d, report %+v: want one outcome change, no calls without -show-calls", code, r)
	}
	_, out, _ = runDiff("-json", "-show-calls", a, b)
	json.Unmarshal([]byte(out), &r)
	if len(r.Calls) != 1 {
		t.Errorf("-show-calls: %d calls, want 1", len(r.Calls))
	}
}

func TestCassetteDiffEscapes(t *testing.T) {
	a := writeSubagentCassette(t, "a.jsonl", diffCall{"evil\x1b[2J\u202e", "p", "1"})
	b := writeSubagentCassette(t, "b\x07.jsonl", diffCall{"evil\x1b[2J\u202e", "p", "2"})
	_, out, _ := runDiff("-show-calls", a, b)
	if strings.ContainsAny(out, "\x1b\u202e\x07") {
		t.Errorf("a control or format character reached the terminal: %q", out)
	}
	if !strings.Contains(out, `b\u0007.jsonl`) {
		t.Errorf("the file name is not escaped: %q", out)
	}
}

var updateDiffScript = flag.Bool("update", false, "rewrite the cassettes embedded in cmd/acpsnap/testdata/script/cassette-diff.txtar")

// diffScript is the testscript of acpsnap cassette diff; its cassettes
// are what the library records today, which this test keeps true.
const diffScript = "../../testdata/script/cassette-diff.txtar"

// scriptCassettes records the script's cassettes with a fixed clock.
func scriptCassettes(t *testing.T) map[string][]byte {
	t.Helper()
	explore := diffCall{"explore", "find where the config is read", "config.go:12"}
	review := diffCall{"review", "review config.go", "looks fine"}
	sets := []struct {
		name  string
		opts  subagent.Options
		step  time.Duration
		calls []diffCall
	}{
		{"base.jsonl", subagent.Options{}, time.Millisecond, []diffCall{explore, review}},
		{"slower.jsonl", subagent.Options{}, 40 * time.Millisecond, []diffCall{explore, review}},
		{"rerecorded.jsonl", subagent.Options{}, time.Millisecond, []diffCall{explore, {"review", "review config.go and main.go", "looks fine"}}},
		{"drift.jsonl", subagent.Options{RequestStorage: subagent.StorageFull}, time.Millisecond, []diffCall{explore, review}},
		{"ambiguous.jsonl", subagent.Options{DuplicatePolicy: subagent.PolicySequence}, time.Millisecond, []diffCall{review, {"review", "review config.go", "needs work"}}},
	}
	out := map[string][]byte{}
	for _, s := range sets {
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		n := 0
		s.opts.Now = func() time.Time { n++; return start.Add(time.Duration(n) * s.step) }
		path := writeSubagentCassetteWith(t, s.name, s.opts, s.calls...)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		out[s.name] = b
	}
	return out
}

func TestCassetteDiffScriptCassettes(t *testing.T) {
	ar, err := txtar.ParseFile(diffScript)
	if err != nil {
		t.Fatal(err)
	}
	want := scriptCassettes(t)
	changed := false
	for i, f := range ar.Files {
		if b, ok := want[f.Name]; ok {
			changed = changed || !bytes.Equal(b, f.Data)
			ar.Files[i].Data = b
			delete(want, f.Name)
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		changed = true
		ar.Files = append(ar.Files, txtar.File{Name: name, Data: want[name]})
	}
	switch {
	case !changed:
	case *updateDiffScript:
		if err := os.WriteFile(diffScript, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	default:
		t.Errorf("%s: its cassettes are not what the library records; accept with: go test ./internal/cli -run CassetteDiffScript -update", diffScript)
	}
}
