package scenario

import "path/filepath"

// Transcript is one side of a comparison, normalized: the stdout transcript
// and the session logs (primary first, then children in order).
type Transcript struct {
	Stdout []byte
	Logs   [][]byte
	// Raw are files kept exactly as the run produced them, by file name:
	// the cassettes of a recording, whose hash chain normalization would
	// break. nil: none.
	Raw map[string][]byte
}

// Fixture is a scenario's committed transcript as raw bytes, with the path
// of each file for messages.
type Fixture struct {
	StdoutPath string
	Stdout     []byte
	LogPaths   []string // session.jsonl, then session.1.jsonl, …
	Logs       [][]byte
}

// ReadFixture reads stdout.expected.jsonl, session.jsonl and the child logs
// of the scenario folder dir.
func ReadFixture(dir string) (*Fixture, error) {
	f := &Fixture{StdoutPath: filepath.Join(dir, StdoutFile)}
	var err error
	if f.Stdout, err = readFile(f.StdoutPath); err != nil {
		return nil, err
	}
	paths := append([]string{filepath.Join(dir, SessionFile)}, ChildLogs(dir)...)
	for _, p := range paths {
		b, err := readFile(p)
		if err != nil {
			return nil, err
		}
		f.LogPaths = append(f.LogPaths, p)
		f.Logs = append(f.Logs, b)
	}
	return f, nil
}
