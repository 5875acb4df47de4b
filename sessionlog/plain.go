package sessionlog

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// plainEvent decodes line into e when it is an event line in the plain
// shape the reference agent writes (exactly the members type, seq, time
// and data, lowercase, each once, a string without escapes and integers),
// as strictUnmarshal would, only without reflection. On anything else it
// returns false and strictUnmarshal decides, with its own error.
func plainEvent(line []byte, e *Event) bool {
	if !json.Valid(line) {
		return false
	}
	s := plain{b: line}
	s.ws()
	if !s.byte('{') {
		return false
	}
	var seen [4]bool
	for first := true; ; first = false {
		s.ws()
		if first && s.byte('}') {
			return true
		}
		if !first {
			if s.byte('}') {
				return true
			}
			if !s.byte(',') {
				return false
			}
			s.ws()
		}
		s.ws()
		key, ok := s.rawString()
		if !ok {
			return false
		}
		s.ws()
		s.byte(':')
		s.ws()
		start := s.i
		s.skip()
		val := line[start:s.i]
		var slot int
		switch string(key) {
		case "type":
			slot = 0
			v, ok := plain{b: val}.stringValue()
			if !ok {
				return false
			}
			e.Type = v
		case "seq":
			slot = 1
			n, err := strconv.ParseInt(string(val), 10, 0)
			if err != nil {
				return false
			}
			e.Seq = int(n)
		case "time":
			slot = 2
			n, err := strconv.ParseInt(string(val), 10, 64)
			if err != nil {
				return false
			}
			e.Time = n
		case "data":
			slot = 3
			if string(val) == "null" {
				return false // RawMessage keeps "null"; let encoding/json say so
			}
			e.Data = val // Read copies it
		default:
			return false
		}
		if seen[slot] {
			return false
		}
		seen[slot] = true
	}
}

// plain steps through JSON that json.Valid accepted.
type plain struct {
	b []byte
	i int
}

func (s *plain) ws() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\r' || s.b[s.i] == '\n') {
		s.i++
	}
}

func (s *plain) byte(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// rawString returns the inside of the string at s.i when it has no escape
// and only ASCII bytes.
func (s *plain) rawString() ([]byte, bool) {
	if !s.byte('"') {
		return nil, false
	}
	start := s.i
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			return s.b[start : s.i-1], true
		case c == '\\' || c >= 0x80:
			return nil, false
		}
		s.i++
	}
	return nil, false
}

// stringValue is the whole of s.b as a string without escapes.
func (s plain) stringValue() (string, bool) {
	v, ok := s.rawString()
	return string(v), ok && s.i == len(s.b)
}

// skip skips the value at s.i.
func (s *plain) skip() {
	if s.i >= len(s.b) {
		return
	}
	switch s.b[s.i] {
	case '"':
		s.str()
	case '{', '[':
		depth := 0
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case '"':
				s.str()
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			}
			s.i++
			if depth == 0 {
				return
			}
		}
	default:
		for s.i < len(s.b) && bytes.IndexByte([]byte(",}] \t\r\n"), s.b[s.i]) < 0 {
			s.i++
		}
	}
}

func (s *plain) str() {
	s.i++
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case '"':
			s.i++
			return
		case '\\':
			s.i++
		}
		s.i++
	}
}
