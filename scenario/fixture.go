package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acpsnap/acpsnap/llmreplay"
	"github.com/acpsnap/acpsnap/normalize"
)

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

// Normalize normalizes the fixture side with a context derived from the
// fixture's own header, never the live one: scrubbing is exact-string, so
// a stale recorded cwd would survive a shared context.
func (f *Fixture) Normalize() (*Transcript, error) {
	header, _, _ := bytes.Cut(f.Logs[0], []byte("\n"))
	c, err := normalize.FixtureContext(header)
	if err != nil {
		return nil, fmt.Errorf("%s:1: %w", f.LogPaths[0], err)
	}
	return NormalizeSide(c, f.Stdout, f.Logs, f.StdoutPath, f.LogPaths)
}

// Stale says which committed files are not byte-identical to their
// normalized form norm: some session log, or stdout.
func (f *Fixture) Stale(norm *Transcript) (logs, stdout bool) {
	for i, raw := range f.Logs {
		if !bytes.Equal(raw, norm.Logs[i]) {
			logs = true
		}
	}
	return logs, !bytes.Equal(f.Stdout, norm.Stdout)
}

// NormalizeSide runs one context over the primary log, the children, then
// stdout: ids in stdout share their numbering with the logs. The names
// label errors ("name:line: why").
func NormalizeSide(c *normalize.Context, stdout []byte, logs [][]byte, stdoutName string, logNames []string) (*Transcript, error) {
	t := &Transcript{}
	for i, raw := range logs {
		out, err := normalize.Session(raw, c)
		if err != nil {
			return nil, positioned(logNames[i], err)
		}
		t.Logs = append(t.Logs, out)
	}
	out, err := normalize.Stdout(stdout, c)
	if err != nil {
		return nil, positioned(stdoutName, err)
	}
	t.Stdout = out
	return t, nil
}

// positioned formats a normalization error as "name:line: why".
func positioned(name string, err error) error {
	var le *normalize.LineError
	if errors.As(err, &le) {
		return fmt.Errorf("%s:%d: %w", name, le.Line, le.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// LoadModel reads the authored model kept beside an authored scenario
// (model.json: the format of `acpsnap new -model`, llmreplay.DecodeModel).
func LoadModel(dir string) (llmreplay.ServerConfig, error) {
	p := filepath.Join(dir, ModelFile)
	f, err := os.Open(p)
	if err != nil {
		return llmreplay.ServerConfig{}, fmt.Errorf("scenario: load the authored model: %w", err)
	}
	defer f.Close()
	cfg, err := llmreplay.DecodeModel(f, p)
	if err != nil {
		return llmreplay.ServerConfig{}, fmt.Errorf("scenario: %w", err)
	}
	return cfg, nil
}
