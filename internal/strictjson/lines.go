package strictjson

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// MaxLine is the longest line the readers accept (64 MiB).
const MaxLine = 64 << 20

// NewScanner returns a line scanner over r whose buffer grows to MaxLine.
// Its lines are bufio.ScanLines' (a trailing "\r" dropped). The buffer
// starts at 64 KiB, or at what r holds when it says and that is less
// (bytes.Reader, strings.Reader, bytes.Buffer: a log read whole).
func NewScanner(r io.Reader) *bufio.Scanner {
	size := 64 << 10
	if l, ok := r.(interface{ Len() int }); ok {
		size = min(size, l.Len()+1)
	}
	return NewScannerBuffer(r, make([]byte, 0, size))
}

// NewScannerBuffer is NewScanner with buf as the buffer it starts with (a
// reader that reuses its buffers).
func NewScannerBuffer(r io.Reader, buf []byte) *bufio.Scanner {
	s := bufio.NewScanner(r)
	s.Buffer(buf[:0], MaxLine)
	s.Split(scanLines())
	return s
}

// scanLines is bufio.ScanLines that looks for the newline only in the
// bytes it has not searched yet: ScanLines searches a line again from its
// start each time more of it arrives, which costs a 64 MiB line read
// 64 KiB at a time seconds of CPU.
func scanLines() bufio.SplitFunc {
	searched := 0 // the unconsumed bytes known to hold no newline
	return func(data []byte, atEOF bool) (int, []byte, error) {
		if i := bytes.IndexByte(data[searched:], '\n'); i >= 0 {
			end := searched + i + 1
			searched = 0
			return bufio.ScanLines(data[:end], atEOF)
		}
		if atEOF {
			searched = 0
			return bufio.ScanLines(data, atEOF)
		}
		searched = len(data)
		return 0, nil, nil
	}
}

// Each calls fn for every line of r with its 1-based number. Blank lines are
// passed too; fn decides. The slice is only valid during the call.
func Each(r io.Reader, fn func(n int, line []byte) error) error {
	s := NewScanner(r)
	n := 0
	for s.Scan() {
		n++
		if err := fn(n, s.Bytes()); err != nil {
			return err
		}
	}
	if err := s.Err(); err != nil {
		return fmt.Errorf("line %d: %w", n+1, err)
	}
	return nil
}

// Encode encodes v as compact JSON without HTML escaping and without a
// trailing newline (for MarshalJSON methods and request bodies).
func Encode(v any) ([]byte, error) {
	b, err := Marshal(v)
	return bytes.TrimSuffix(b, []byte("\n")), err
}

// Marshal encodes v as compact JSON without HTML escaping, plus "\n".
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
