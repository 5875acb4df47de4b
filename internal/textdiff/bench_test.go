package textdiff

import (
	"strings"
	"testing"
)

// The adversarial shapes the walk and the word diff are bounded for: deep
// nesting (maxDepth) and long texts that differ everywhere (maxEdits).
func BenchmarkLines(b *testing.B) {
	for _, bc := range []struct{ name, want, got string }{
		{"deep", "{\"a\":" + strings.Repeat("[", 3000) + "1" + strings.Repeat("]", 3000) + "}", "{\"a\":" + strings.Repeat("[", 3000) + "2" + strings.Repeat("]", 3000) + "}"},
		{"words", `{"s":"` + strings.Repeat("a b ", 50000) + `"}`, `{"s":"` + strings.Repeat("b a ", 50000) + `"}`},
		{"array", `{"a":[` + strings.Repeat("1,2,", 20000) + `3]}`, `{"a":[` + strings.Repeat("2,1,", 20000) + `3]}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				JSONLines(bc.want, bc.got, Config{})
			}
		})
	}
}
