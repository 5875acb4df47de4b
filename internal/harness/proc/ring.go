// This file holds Ring, which keeps the last bytes written to it in
// bounded memory: the tail of an agent's stderr, a terminal's output under
// ACP's outputByteLimit. Writes cost the bytes written, never a copy of
// what is kept; only Bytes copies, once per call.
//
//	var b proc.Ring
//	b.Limit = 1 << 20
//	b.Write(p)       // any amount; the oldest bytes go first
//	out := b.Bytes() // the last ≤ Limit bytes, oldest first
//	b.Dropped()      // how many were dropped

package proc

// Ring is a ring of the last Limit bytes written. The zero value with a
// Limit set is ready; it is not safe for concurrent use.
type Ring struct {
	Limit int // bytes kept; must be set before the first Write (0: keep nothing)

	buf     []byte // grows up to Limit, then is a ring
	start   int    // index of the oldest byte once the ring is full
	dropped int64
}

// Write keeps the last Limit bytes of everything written so far. It never
// fails.
func (b *Ring) Write(p []byte) (int, error) {
	n := len(p)
	if b.Limit <= 0 {
		b.dropped += int64(n)
		return n, nil
	}
	if len(p) > b.Limit { // only the end of p can survive
		b.dropped += int64(len(b.buf) + len(p) - b.Limit)
		b.buf = append(b.buf[:0], p[len(p)-b.Limit:]...)
		b.start = 0
		return n, nil
	}
	if room := b.Limit - len(b.buf); room > 0 { // still filling
		k := min(room, len(p))
		b.buf = append(b.buf, p[:k]...)
		p = p[k:]
	}
	for len(p) > 0 { // full: overwrite the oldest bytes
		k := copy(b.buf[b.start:], p)
		b.dropped += int64(k)
		p = p[k:]
		b.start = (b.start + k) % len(b.buf)
	}
	return n, nil
}

// Len is the number of bytes kept.
func (b *Ring) Len() int { return len(b.buf) }

// Dropped is the number of bytes written but no longer kept.
func (b *Ring) Dropped() int64 { return b.dropped }

// Bytes returns a copy of the kept bytes, oldest first.
func (b *Ring) Bytes() []byte {
	out := make([]byte, 0, len(b.buf))
	out = append(out, b.buf[b.start:]...)
	return append(out, b.buf[:b.start]...)
}
