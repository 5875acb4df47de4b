package check

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWritten(t *testing.T) {
	t0 := time.Unix(1, 0)
	before := map[string]fileState{"seeded": {3, t0}, "grown": {3, t0}, "touched": {3, t0}}
	after := map[string]fileState{"seeded": {3, t0}, "grown": {9, t0}, "touched": {3, t0.Add(time.Second)}, "new/file": {1, t0}}
	want := []HomeFile{{"grown", 9}, {"new/file", 1}, {"touched", 3}}
	if diff := cmp.Diff(want, written(before, after)); diff != "" {
		t.Errorf("written (-want +got):\n%s", diff)
	}
}

func TestHomeFilesCap(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	for i := range homeFileCap + 5 {
		files[fmt.Sprintf("f%03d", i)] = "x"
	}
	writeFiles(t, dir, files)
	if n := len(homeFiles(dir)); n != homeFileCap+1 {
		t.Errorf("homeFiles listed %d files, want the cap %d plus one", n, homeFileCap)
	}
}
