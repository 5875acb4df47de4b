package cassette_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/cassette"
)

// BenchmarkVerify measures verification throughput (MB/s in the output)
// on 1,000 frames of about 2 KB: the contract is at least 50 MB/s.
func BenchmarkVerify(b *testing.B) {
	path := filepath.Join(b.TempDir(), "c.jsonl")
	w, err := cassette.Create(path, testKind, map[string]any{})
	if err != nil {
		b.Fatal(err)
	}
	text := strings.Repeat("drwxr-xr-x  2 user group 4096 Dec  1 08:00 some-folder-name\n", 30)
	for i := range 1000 {
		if err := w.Append("event", map[string]any{"n": i, "text": fmt.Sprintf("%d %s", i, text)}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Complete(); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := cassette.Verify(data, "c.jsonl", testKind); err != nil {
			b.Fatal(err)
		}
	}
}
