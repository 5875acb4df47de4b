package harness

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// positions maps JSON paths ("$.steps[3].op") to the byte offset where the
// value (for object members: the key) starts.
type positions map[string]int64

// at is the offset of path or of its nearest recorded ancestor.
func (p positions) at(path string) int64 {
	for {
		if off, ok := p[path]; ok {
			return off
		}
		i := strings.LastIndexAny(path, ".[")
		if i <= 0 {
			return p["$"]
		}
		path = path[:i]
	}
}

// jsonPositions walks b once with the token reader and records positions;
// a syntax error is returned as is (see syntaxOffset).
func jsonPositions(b []byte) (positions, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	pos := positions{}
	if err := walkJSON(dec, "$", pos); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &json.SyntaxError{Offset: dec.InputOffset()}
	}
	return pos, nil
}

func walkJSON(dec *json.Decoder, path string, pos positions) error {
	if _, ok := pos[path]; !ok {
		pos[path] = dec.InputOffset()
	}
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		for dec.More() {
			off := dec.InputOffset()
			key, err := dec.Token()
			if err != nil {
				return err
			}
			p := fmt.Sprintf("%s.%v", path, key)
			pos[p] = off
			if err := walkJSON(dec, p, pos); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	case json.Delim('['):
		for i := 0; dec.More(); i++ {
			if err := walkJSON(dec, fmt.Sprintf("%s[%d]", path, i), pos); err != nil {
				return err
			}
		}
		_, err = dec.Token()
	}
	return err
}

// syntaxOffset is where a decoding error happened, if it says.
func syntaxOffset(err error) int64 {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Offset
	}
	return 1 << 62 // unexpected EOF: the end
}

// lineAt is the 1-based line of the first significant byte at or after off.
func lineAt(b []byte, off int64) int {
	if off > int64(len(b)) {
		off = int64(len(b))
	}
	for off < int64(len(b)) && strings.IndexByte(" \t\r\n,:", b[off]) >= 0 {
		off++
	}
	if off >= int64(len(b)) && off > 0 {
		off = int64(len(b)) - 1
	}
	return bytes.Count(b[:off], []byte("\n")) + 1
}
