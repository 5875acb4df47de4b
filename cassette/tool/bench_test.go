package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
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
