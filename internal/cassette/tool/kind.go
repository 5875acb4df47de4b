package tool

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/acpsnap/acpsnap/internal/cassette"
)

// Frame types of a tool cassette.
const (
	TypeStart  = "call/start"
	TypeResult = "call/result"
)

// KindName is the header's kind.
const KindName = "tool"

// Kind is the tool cassette's kind for the protocol: its policy
// ({"include":[…]}), its two body frames and the pairing rules between them.
func Kind() cassette.Kind {
	return cassette.Kind{
		Name:   KindName,
		Types:  []string{TypeStart, TypeResult},
		Policy: func(p json.RawMessage) error { _, err := parsePolicy(p); return err },
		Body:   checkBody,
		Check:  func(_ json.RawMessage, frames []cassette.Frame) error { _, err := calls(frames); return err },
		Stats:  stats,
	}
}

// policy is the header's policy object.
type policy struct {
	Include []string `json:"include"`
}

func parsePolicy(raw json.RawMessage) (*Include, error) {
	var p policy
	if err := cassette.Decode(raw, &p); err != nil {
		return nil, err
	}
	inc, err := NewInclude(p.Include)
	if err != nil {
		return nil, fmt.Errorf("$.%w", err)
	}
	return inc, nil
}

// start is a call/start body: the call's identity.
type start struct {
	Ordinal int             `json:"ordinal"`
	Path    string          `json:"path"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args"` // canonical
}

// result is a call/result body: the call it ends (path and ordinal, the
// call's handle) and the value the body returned, or its error.
type result struct {
	Ordinal int             `json:"ordinal"`
	Path    string          `json:"path"`
	Value   json.RawMessage `json:"value,omitempty"`
	Error   *callError      `json:"error,omitempty"`
}

type callError struct {
	Message string `json:"message"`
}

func checkBody(typ string, body json.RawMessage) error {
	var err error
	if typ == TypeStart {
		_, err = parseStart(body)
	} else {
		_, err = parseResult(body)
	}
	return err
}

func parseStart(body json.RawMessage) (start, error) {
	m, err := cassette.Members(body)
	if err == nil {
		err = cassette.CheckMembers(m, []string{"args", "ordinal", "path", "tool"}, nil)
	}
	if err != nil {
		return start{}, err
	}
	s := start{Args: m["args"]}
	if s.Ordinal, err = ordinal(m["ordinal"]); err != nil {
		return start{}, err
	}
	if s.Path, err = name(m["path"], "path"); err != nil {
		return start{}, err
	}
	s.Tool, err = name(m["tool"], "tool")
	return s, err
}

func parseResult(body json.RawMessage) (result, error) {
	m, err := cassette.Members(body)
	if err == nil {
		err = cassette.CheckMembers(m, []string{"ordinal", "path"}, []string{"error", "value"})
	}
	if err != nil {
		return result{}, err
	}
	r := result{Value: m["value"]}
	if r.Ordinal, err = ordinal(m["ordinal"]); err != nil {
		return result{}, err
	}
	if r.Path, err = name(m["path"], "path"); err != nil {
		return result{}, err
	}
	e, hasErr := m["error"]
	if hasErr == (r.Value != nil) {
		return result{}, errors.New("$: want exactly one of value and error")
	}
	if hasErr {
		em, err := cassette.Members(e)
		if err == nil {
			err = cassette.CheckMembers(em, []string{"message"}, nil)
		}
		var msg string
		if err == nil && (em["message"][0] != '"' || json.Unmarshal(em["message"], &msg) != nil) {
			err = errors.New("$.message: want a string")
		}
		if err != nil {
			return result{}, fmt.Errorf("$.error%s", err.Error()[1:])
		}
		r.Error = &callError{Message: msg}
	}
	return r, nil
}

func ordinal(raw json.RawMessage) (int, error) {
	n, err := strconv.Atoi(string(raw))
	if err != nil || n < 0 {
		return 0, errors.New("$.ordinal: want a non-negative integer")
	}
	return n, nil
}

func name(raw json.RawMessage, key string) (string, error) {
	var s string
	if raw[0] != '"' || json.Unmarshal(raw, &s) != nil || s == "" {
		return "", fmt.Errorf("$.%s: want a non-empty string", key)
	}
	return s, nil
}

// call is one recorded call: its identity and its outcome.
type call struct {
	start
	res result
	seq int // the start frame
}

// handle names a call: its path and its ordinal at that path.
type handle struct {
	path string
	ord  int
}

// tape is a verified cassette's calls by path, paths in order of their
// first call.
type tape struct {
	byPath map[string][]call
	paths  []string
}

// calls pairs the frames of a verified file: the starts at one path take
// ordinals 0, 1, … in frame order; each result names a started, unfinished
// call; every started call has finished.
func calls(frames []cassette.Frame) (tape, error) {
	tp := tape{byPath: map[string][]call{}}
	open := map[handle]bool{}
	for _, fr := range frames {
		if fr.Type == TypeStart {
			s, _ := parseStart(fr.Body) // checked by Body
			cs := tp.byPath[s.Path]
			if s.Ordinal != len(cs) {
				return tape{}, &cassette.FrameError{Seq: fr.Seq, Reason: fmt.Sprintf("$.body.ordinal: %d, want %d (ordinals count the starts at a path)", s.Ordinal, len(cs))}
			}
			if len(cs) == 0 {
				tp.paths = append(tp.paths, s.Path)
			}
			tp.byPath[s.Path] = append(cs, call{start: s, seq: fr.Seq})
			open[handle{s.Path, s.Ordinal}] = true
			continue
		}
		r, _ := parseResult(fr.Body)
		h := handle{r.Path, r.Ordinal}
		if !open[h] {
			return tape{}, &cassette.FrameError{Seq: fr.Seq, Reason: fmt.Sprintf("$.body: a result for call %d at %s, which is not running", r.Ordinal, r.Path)}
		}
		delete(open, h)
		tp.byPath[r.Path][r.Ordinal].res = r
	}
	for _, p := range tp.paths {
		for _, c := range tp.byPath[p] {
			if open[handle{p, c.Ordinal}] {
				return tape{}, &cassette.FrameError{Seq: c.seq, Reason: fmt.Sprintf("call %d at %s never finished (no call/result)", c.Ordinal, p)}
			}
		}
	}
	return tp, nil
}

// stats counts calls, distinct tools, distinct paths and error results.
func stats(_ json.RawMessage, frames []cassette.Frame) []cassette.Stat {
	tools, paths := map[string]bool{}, map[string]bool{}
	n, errs := 0, 0
	for _, fr := range frames {
		switch fr.Type {
		case TypeStart:
			s, _ := parseStart(fr.Body)
			n++
			tools[s.Tool], paths[s.Path] = true, true
		case TypeResult:
			if r, _ := parseResult(fr.Body); r.Error != nil {
				errs++
			}
		}
	}
	return []cassette.Stat{{Name: "calls", Value: n}, {Name: "tools", Value: len(tools)}, {Name: "paths", Value: len(paths)}, {Name: "errors", Value: errs}}
}
