package sessionlog

import (
	"strconv"

	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// plainEvent decodes line, which json.Valid and strictjson.Check accepted,
// into e when it is an event line in the plain shape the reference agent
// writes (exactly the members type, seq, time and data, lowercase, each
// once, a string without escapes and integers), as strictUnmarshal would,
// only without reflection. On anything else it returns false and
// strictUnmarshal decides, with its own error.
func plainEvent(line []byte, e *Event) bool {
	i := strictjson.Space(line, 0)
	if line[i] != '{' {
		return false
	}
	var seen [4]bool
	for i = strictjson.Space(line, i+1); line[i] != '}'; {
		k := i
		i = strictjson.StringEnd(line, k)
		key, ok := plainString(line[k:i])
		if !ok {
			return false
		}
		start := strictjson.Space(line, strictjson.Space(line, i)+1) // past the colon
		i = strictjson.ValueEnd(line, start)
		slot, ok := e.set(key, line[start:i])
		if !ok || seen[slot] {
			return false
		}
		seen[slot] = true
		if i = strictjson.Space(line, i); line[i] == ',' {
			i = strictjson.Space(line, i+1)
		}
	}
	return true
}

// set decodes the member key of a plain event line into e and returns
// its slot; ok is false for a member strictUnmarshal must decide.
func (e *Event) set(key string, val []byte) (slot int, ok bool) {
	switch key {
	case "type":
		e.Type, ok = plainString(val)
		return 0, ok && val[0] == '"'
	case "seq":
		n, err := strconv.ParseInt(string(val), 10, 0)
		e.Seq = int(n)
		return 1, err == nil
	case "time":
		n, err := strconv.ParseInt(string(val), 10, 64)
		e.Time = n
		return 2, err == nil
	case "data":
		e.Data = val                    // Read copies it
		return 3, string(val) != "null" // RawMessage keeps "null"; let encoding/json say so
	}
	return 0, false
}

// plainString is the JSON string raw when it holds only ASCII and no
// escape (what it holds is then its bytes).
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if !strictjson.Plain[c] {
			return "", false
		}
	}
	return string(raw[1 : len(raw)-1]), true
}
