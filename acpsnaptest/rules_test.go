package acpsnaptest

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// TestWithRules: Params.Scrub and Params.Ignore come after acpsnap.yml's
// own rules, in a copy (the loaded corpus is left alone); Ignore needs an
// HTTP dialect and a Scrub needs its pattern.
func TestWithRules(t *testing.T) {
	type testCase struct {
		name    string
		corpus  scenario.Corpus
		p       Params
		scrub   []string // the patterns, in order
		ignore  []string
		wantErr string
	}
	own := scenario.NewScrubRule(regexp.MustCompile(`id-\d+`), "id-N")
	for _, tc := range []testCase{
		{name: "no rules", corpus: scenario.Corpus{Scrub: []scenario.ScrubRule{own}}, scrub: []string{`id-\d+`}},
		{name: "after the corpus's", corpus: scenario.Corpus{Scrub: []scenario.ScrubRule{own}, Model: scenario.CorpusModel{Dialect: "openai-chat", Ignore: []string{"/user"}}},
			p:     Params{Scrub: []Scrub{{regexp.MustCompile(`\d{4}-\d{2}-\d{2}`), "{{date}}"}}, Ignore: []string{"header:x-request-id"}},
			scrub: []string{`id-\d+`, `\d{4}-\d{2}-\d{2}`}, ignore: []string{"/user", "header:x-request-id"}},
		{name: "ignore on a native corpus", p: Params{Ignore: []string{"/x"}}, wantErr: "ignore needs an HTTP dialect"},
		{name: "nil pattern", p: Params{Scrub: []Scrub{{Replace: "x"}}}, wantErr: "Params.Scrub[0]: Pattern is nil"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(tc.corpus.Scrub)
			c, err := withRules(&tc.corpus, tc.p)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var scrub []string
			for _, r := range c.Scrub {
				scrub = append(scrub, r.Regexp().String())
			}
			if d := cmp.Diff(tc.scrub, scrub); d != "" {
				t.Errorf("scrub (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.ignore, c.Model.Ignore); d != "" {
				t.Errorf("ignore (-want +got):\n%s", d)
			}
			if len(tc.corpus.Scrub) != before {
				t.Errorf("the loaded corpus was changed")
			}
		})
	}
}
