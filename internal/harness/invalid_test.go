package harness_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/harness"
)

// writeFile writes content to dir/rel and returns the path.
func writeFile(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunRejectsInvalidScenario(t *testing.T) {
	sc := scenario{input: `{"steps":[{"op":"promt"}]}`}
	res, err := run(t, sc.write(t), nil)
	if res != nil || err == nil || !strings.Contains(err.Error(), `unknown op "promt"`) {
		t.Fatalf("Run = %v, %v; want no result and the input error", res, err)
	}
	if !errors.Is(err, harness.ErrInvalidScenario) {
		t.Errorf("error %v does not wrap ErrInvalidScenario", err)
	}
}
