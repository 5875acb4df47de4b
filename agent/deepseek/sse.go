package deepseek

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxEventSize bounds one SSE event (all of its data lines), so that a
// misbehaving server cannot make the reader buffer without limit.
const maxEventSize = 16 << 20

// errEventTooLarge is returned by sseReader.Next for an event over maxEventSize.
var errEventTooLarge = errors.New("event larger than 16 MiB")

// sseReader reads the data of server-sent events (the subset of the
// WHATWG EventSource format that chat-completion streams use): lines end
// with "\n" or "\r\n"; "data:" lines (one optional space after the colon)
// accumulate, joined by "\n"; a blank line dispatches the event; comment
// lines (":") and other fields (event, id, retry) are ignored. Unlike
// EventSource, which discards it, an event cut off by EOF (its blank line,
// or even its last line end, missing) is dispatched: servers that end the
// stream with "data: [DONE]" and close the connection at once are common.
type sseReader struct {
	r    *bufio.Reader
	data []byte
	has  bool // a data line was seen since the last dispatch
	eof  bool // the input has ended
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 32<<10)}
}

// Next returns the data of the next event. At the end of the input it
// returns io.EOF; a read error is returned as is. The returned slice is
// valid until the next call.
func (s *sseReader) Next() ([]byte, error) {
	s.data, s.has = s.data[:0], false
	for {
		line, err := s.line()
		if err == io.EOF && s.has {
			return s.data, nil
		}
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			if s.has {
				return s.data, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if string(field) != "data" {
			continue
		}
		value = bytes.TrimPrefix(value, []byte(" "))
		if s.has {
			s.data = append(s.data, '\n')
		}
		if len(s.data)+len(value) > maxEventSize {
			return nil, errEventTooLarge
		}
		s.data, s.has = append(s.data, value...), true
	}
}

// line returns the next line without its terminator; an unterminated
// last line is returned as a line, and io.EOF after it.
func (s *sseReader) line() ([]byte, error) {
	if s.eof {
		return nil, io.EOF
	}
	var long []byte
	for {
		frag, err := s.r.ReadSlice('\n')
		switch {
		case err == bufio.ErrBufferFull:
			if len(long)+len(frag) > maxEventSize {
				return nil, errEventTooLarge
			}
			long = append(long, frag...)
			continue
		case err == io.EOF && len(long)+len(frag) > 0:
			s.eof = true
		case err != nil:
			return nil, err
		}
		if long != nil {
			frag = append(long, frag...)
		}
		frag = bytes.TrimSuffix(frag, []byte("\n"))
		return bytes.TrimSuffix(frag, []byte("\r")), nil
	}
}
