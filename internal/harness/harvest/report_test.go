package harvest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestReportFileErrors(t *testing.T) {
	dir := t.TempDir()
	unknown := writeFile(t, dir, "unknown.json", `{"fixtures":[],"left":1}`)
	trailing := writeFile(t, dir, "trailing.json", `{"fixtures":[]} {}`)
	type testCase struct {
		name string
		path string
		want string
	}
	tests := []testCase{
		{"missing", filepath.Join(dir, "nope.json"), "harvest: read report: open " + filepath.Join(dir, "nope.json") + ": no such file or directory"},
		{"unknown key", unknown, "harvest: read report: " + unknown + `: json: unknown field "left"`},
		{"trailing data", trailing, "harvest: read report: " + trailing + ": trailing data after the report"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadReport(tc.path)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error = %v, want %s", err, tc.want)
			}
		})
	}
}

func writeFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
