package relay

import (
	"regexp"
	"slices"
	"testing"
)

// numberedReference is what numberedSpans finds, as a regular expression.
var numberedReference = regexp.MustCompile(`\{\{(?:session|toolCall|message|approval|id):[1-9][0-9]*\}\}`)

// numberOf is the number and the closing braces of a numbered token.
var numberOf = regexp.MustCompile(`[0-9]+\}\}$`)

func TestMaskNumbers(t *testing.T) {
	for in, want := range map[string]string{
		`{"user":"{{id:12}}","c":"{{toolCall:3}}{{session:1}}"}`:       `{"user":"{{id:}}","c":"{{toolCall:}}{{session:}}"}`,
		`{{{id:1}}} {{id:0}} {{id:1} {{idx:1}} {{cwd}} {{agentRpc:2}}`: `{{{id:}}} {{id:0}} {{id:1} {{idx:1}} {{cwd}} {{agentRpc:2}}`,
		`no tokens`: `no tokens`,
		`{{id:`:     `{{id:`,
	} {
		if got := string(maskNumbers([]byte(in))); got != want {
			t.Errorf("maskNumbers(%s) = %s, want %s", in, got, want)
		}
	}
}

// FuzzNumbered: the scanner finds exactly the tokens the regular
// expression finds, and masking leaves everything else as it was.
func FuzzNumbered(f *testing.F) {
	for _, s := range []string{`{"a":"{{id:1}}"}`, `{{{toolCall:20}}}`, `{{id:0}}{{id:1}`, `{{message:9}}{{approval:1}}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var want []int
		for _, m := range numberedReference.FindAllStringIndex(s, -1) {
			want = append(want, m...)
		}
		if got := numberedSpans([]byte(s)); !slices.Equal(got, want) {
			t.Fatalf("numberedSpans(%q) = %v, want %v", s, got, want)
		}
		masked := numberedReference.ReplaceAllStringFunc(s, func(tok string) string {
			return tok[:len(tok)-len(numberOf.FindString(tok))] + "}}"
		})
		if got := string(maskNumbers([]byte(s))); got != masked {
			t.Fatalf("maskNumbers(%q) = %q, want %q", s, got, masked)
		}
	})
}
