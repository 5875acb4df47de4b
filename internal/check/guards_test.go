package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestVerifyDrafts: the scaffold's TODO reason and a kept model.json, as
// the guards see them on a scenario not recorded yet.
func TestVerifyDrafts(t *testing.T) {
	type testCase struct {
		name   string
		reason string
		rec    string
		model  string // model.json content; "": none
		drafts bool
		want   []string // violation messages, by prefix
	}
	const todo = "TODO: one line on what this scenario proves"
	for _, tc := range []testCase{
		{name: "todo reason", reason: todo, rec: "live", want: []string{`reason is still the scaffold's "TODO:`}},
		{name: "todo reason, drafts allowed", reason: todo, rec: "live", drafts: true},
		{name: "authored keeps its model", reason: "r", rec: "authored", model: `[{"kind":"chunks","chunks":[{"type":"finish","reason":"stop"}]}]`},
		{name: "live keeps no model", reason: "r", rec: "live", model: `[]`, want: []string{"only an authored scenario keeps its model"}},
		{name: "a model that does not load", reason: "r", rec: "authored", model: `[{"kind":"chunk"}]`, want: []string{"check: llmreplay: decode model"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "s")
			files := map[string]string{
				scenario.ManifestFile: "version: 1\nscenario: s\nreason: \"" + tc.reason + "\"\nrecording: " + tc.rec + "\n",
				scenario.InputFile:    `{"steps":[{"op":"initialize"}]}`,
			}
			if tc.model != "" {
				files[scenario.ModelFile] = tc.model
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			for name, content := range files {
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			all := func(string) bool { return true }
			var got []string
			for _, v := range Verify(root, VerifyConfig{Unrecorded: all, Drafts: tc.drafts}) {
				got = append(got, v.Msg)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("violations %q, want %d starting with %q", got, len(tc.want), tc.want)
			}
			for i, w := range tc.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("violation %d (-want prefix +got):\n%s", i, cmp.Diff(w, got[i]))
				}
			}
		})
	}
}

// BenchmarkVerify reads and checks the bundled corpus as a run's preflight
// does (every folder read, every guard): the cost a run of the whole corpus
// pays before its first agent starts.
func BenchmarkVerify(b *testing.B) {
	for b.Loop() {
		if vs := Verify(filepath.Join("..", "..", "snapshots"), VerifyConfig{}); len(vs) > 0 {
			b.Fatal(vs)
		}
	}
}
