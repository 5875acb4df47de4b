package report

import (
	"bytes"
	"html"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/internal/scenario"
)

// corpora are the bundled corpus and the example corpora, whose fixtures
// are committed: both views must work for every scenario of them.
func corpora(t *testing.T) []string {
	t.Helper()
	examples, err := filepath.Glob("../../examples/*/acpsnap.yml")
	if err != nil || len(examples) == 0 {
		t.Fatalf("no example corpora under ../examples (%v)", err)
	}
	roots := []string{"../../snapshots"}
	for _, e := range examples {
		roots = append(roots, filepath.Dir(e))
	}
	return roots
}

// TestEveryScenario builds the transcript of every committed scenario and
// prints it both ways: the terminal view within its width, each prompt of
// the client script in both views.
func TestEveryScenario(t *testing.T) {
	n := 0
	for _, root := range corpora(t) {
		names, err := scenario.Names(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range names {
			dir := filepath.Join(root, name)
			n++
			t.Run(strings.TrimPrefix(dir, "../../"), func(t *testing.T) {
				tr, err := Load(dir)
				if err != nil {
					t.Fatal(err)
				}
				var text, page bytes.Buffer
				if err := WriteText(&text, tr, TextConfig{Width: 60}); err != nil {
					t.Fatal(err)
				}
				if err := WriteHTML(&page, Page{Scenarios: []Scenario{{Name: name, Status: "passed", Transcript: tr}}}); err != nil {
					t.Fatal(err)
				}
				for i, l := range strings.Split(text.String(), "\n") {
					if utf8.RuneCountInString(l) > 60 {
						t.Errorf("line %d is %d wide, over the width 60: %q", i+1, utf8.RuneCountInString(l), l)
					}
				}
				in, err := scenario.LoadInput(filepath.Join(dir, scenario.InputFile))
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range in.Steps {
					if s.Text == "" {
						continue
					}
					first := strings.Fields(s.Text)[0]
					if !strings.Contains(text.String(), "› "+first) {
						t.Errorf("the terminal view has no prompt starting %q:\n%s", first, text.String())
					}
					if !strings.Contains(html.UnescapeString(page.String()), s.Text) {
						t.Errorf("the HTML view lacks the prompt %q", s.Text)
					}
				}
			})
		}
	}
	if n < 50 {
		t.Errorf("%d scenarios in the corpora, want the bundled and example ones (over 50)", n)
	}
}

func TestEveryScenarioReportIsSmall(t *testing.T) {
	names, err := scenario.Names("../../snapshots")
	if err != nil {
		t.Fatal(err)
	}
	var r Page
	for _, name := range names {
		tr, err := Load(filepath.Join("../../snapshots", name))
		if err != nil {
			t.Fatal(err)
		}
		r.Scenarios = append(r.Scenarios, Scenario{Name: name, Status: "passed", Transcript: tr})
	}
	var page bytes.Buffer
	if err := WriteHTML(&page, r); err != nil {
		t.Fatal(err)
	}
	t.Logf("the report of the bundled corpus (%d scenarios, all passed) is %d bytes", len(names), page.Len())
	if page.Len() > 200<<10 {
		t.Errorf("report %d bytes, over the 200 KiB docs/format.md states", page.Len())
	}
}
