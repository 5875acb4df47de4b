package proc

import (
	"bytes"
	"math/rand"
	"testing"
)

// TestBuffer checks the ring against the plain "append, keep the tail" rule.
func TestBuffer(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, limit := range []int{0, 1, 7, 64, 1000} {
		b := Ring{Limit: limit}
		var all []byte
		for i := 0; i < 300; i++ {
			p := make([]byte, rng.Intn(3*limit+3))
			rng.Read(p)
			b.Write(p)
			all = append(all, p...)
			want := all[max(0, len(all)-limit):]
			if got := b.Bytes(); !bytes.Equal(got, want) {
				t.Fatalf("limit %d, write %d: kept %d bytes that differ from the last %d written", limit, i, len(got), len(want))
			}
			if b.Dropped() != int64(len(all)-len(want)) {
				t.Fatalf("limit %d: Dropped = %d, want %d", limit, b.Dropped(), len(all)-len(want))
			}
		}
	}
}

// TestBufferWritesDoNotCopyTheWindow: 100 MiB through a 20 MiB ring costs
// no allocation per write once the ring is full.
func TestBufferWritesDoNotCopyTheWindow(t *testing.T) {
	b := Ring{Limit: 20 << 20}
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	for b.Len() < b.Limit {
		b.Write(chunk)
	}
	allocs := testing.AllocsPerRun(100, func() { b.Write(chunk) })
	if allocs != 0 {
		t.Errorf("a write into a full ring allocates %v times", allocs)
	}
}

func BenchmarkWrite(b *testing.B) {
	r := Ring{Limit: 20 << 20}
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		r.Write(chunk)
	}
}
