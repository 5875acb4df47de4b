package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/acpsnap/acpsnap/internal/cassette"
)

// BenchmarkPlayerCall shows lookup per call is O(1): the time per call is
// the same with 10 and with 10,000 recorded calls.
func BenchmarkPlayerCall(b *testing.B) {
	for _, n := range []int{10, 10_000} {
		b.Run(fmt.Sprintf("recorded=%d", n), func(b *testing.B) {
			file := filepath.Join(b.TempDir(), "c.jsonl")
			r, err := NewRecorder(file, []string{"t"})
			if err != nil {
				b.Fatal(err)
			}
			args := make([]json.RawMessage, n)
			for i := range n {
				args[i] = json.RawMessage(fmt.Sprintf(`{"path":"src/file%d.go","line":%d}`, i, i))
				r.Call(context.Background(), "", "t", args[i], func(context.Context) (json.RawMessage, error) {
					return json.RawMessage(`"ok"`), nil
				})
			}
			if err := r.Close(); err != nil {
				b.Fatal(err)
			}
			p, err := NewPlayer(file, nil)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				k := i % n
				if k == 0 {
					p.next, p.consumed = map[string]int{}, map[string]int{} // rewind: a new run over the same tape
				}
				if _, err := p.Call(ctx, "", "t", args[k], nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkVerify measures verifying a tool cassette (MB/s in the output),
// pairing included: 1,000 calls with results of about 2 KB of text.
func BenchmarkVerify(b *testing.B) {
	file := filepath.Join(b.TempDir(), "c.jsonl")
	r, err := NewRecorder(file, []string{"bash"})
	if err != nil {
		b.Fatal(err)
	}
	text, _ := json.Marshal(strings.Repeat("drwxr-xr-x  2 user group 4096 Dec  1 08:00 \"some\" folder\n", 30))
	for i := range 1000 {
		r.Call(context.Background(), "", "bash", json.RawMessage(fmt.Sprintf(`{"command":"ls -l dir%d"}`, i)), func(context.Context) (json.RawMessage, error) {
			return text, nil
		})
	}
	if err := r.Close(); err != nil {
		b.Fatal(err)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := cassette.Verify(data, "c.jsonl", Kind()); err != nil {
			b.Fatal(err)
		}
	}
}
