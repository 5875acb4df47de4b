package snapshots

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acpsnap/acpsnap/harness"
	"github.com/acpsnap/acpsnap/normalize"
)

// transcript is one side of a comparison, normalized: the stdout transcript
// and the session logs (primary first, then children in order).
type transcript struct {
	Stdout []byte
	Logs   [][]byte
}

// fixtureFiles is a scenario's committed transcript as raw bytes, with the
// path of each file for messages.
type fixtureFiles struct {
	StdoutPath string
	Stdout     []byte
	LogPaths   []string
	Logs       [][]byte
}

// readFixture reads stdout.expected.jsonl, session.jsonl and the child logs.
func readFixture(dir string) (*fixtureFiles, error) {
	f := &fixtureFiles{StdoutPath: filepath.Join(dir, StdoutFile)}
	var err error
	if f.Stdout, err = os.ReadFile(f.StdoutPath); err != nil {
		return nil, err
	}
	paths := append([]string{filepath.Join(dir, SessionFile)}, harness.ChildLogs(dir)...)
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		f.LogPaths = append(f.LogPaths, p)
		f.Logs = append(f.Logs, b)
	}
	return f, nil
}

// normalize normalizes the fixture side with a context derived from the
// fixture's own header (never the live one: scrubbing is exact-string).
func (f *fixtureFiles) normalize() (*transcript, error) {
	header, _, _ := bytes.Cut(f.Logs[0], []byte("\n"))
	c, err := normalize.FixtureContext(header)
	if err != nil {
		return nil, fmt.Errorf("%s:1: %w", f.LogPaths[0], err)
	}
	return normalizeSide(c, f.Stdout, f.Logs, f.StdoutPath, f.LogPaths)
}

// stale says which mode would rewrite the committed files that are not
// byte-identical to their normalized form: Refresh for a log, Update for
// stdout only, "" when every file is in normal form.
func (f *fixtureFiles) stale(norm *transcript) Mode {
	for i, raw := range f.Logs {
		if !bytes.Equal(raw, norm.Logs[i]) {
			return Refresh
		}
	}
	if !bytes.Equal(f.Stdout, norm.Stdout) {
		return Update
	}
	return ""
}

// normalizeLive normalizes what a run produced with the run's own context:
// its cwd ({{cwd}}), the agent's private HOME ({{home}}) and the run's
// private root ({{root}}), with every spelling of each.
func normalizeLive(res *harness.Result) (*transcript, error) {
	c := normalize.NewContext(res.Cwd, res.CwdAliases...)
	if res.Home != "" {
		c.AddPath("home", res.Home, normalize.Aliases(res.Home)...)
	}
	if res.Root != "" {
		c.AddPath("root", res.Root, normalize.Aliases(res.Root)...)
	}
	logs := make([][]byte, len(res.Logs))
	names := make([]string, len(res.Logs))
	for i, l := range res.Logs {
		logs[i] = l.Raw
		names[i] = "live " + logName(i)
	}
	var stdout []byte
	for _, l := range res.Stdout {
		stdout = append(append(stdout, l...), '\n')
	}
	return normalizeSide(c, stdout, logs, "live stdout", names)
}

// normalizeSide runs one context over the primary log, the children, then
// stdout: ids in stdout share their numbering with the logs.
func normalizeSide(c *normalize.Context, stdout []byte, logs [][]byte, stdoutName string, logNames []string) (*transcript, error) {
	t := &transcript{}
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

// logName is the fixture file name of the i-th harvested log.
func logName(i int) string {
	if i == 0 {
		return SessionFile
	}
	return harness.ChildFile(i)
}

// positioned formats a normalization error as "name:line: why".
func positioned(name string, err error) error {
	var le *normalize.LineError
	if errors.As(err, &le) {
		return fmt.Errorf("%s:%d: %w", name, le.Line, le.Err)
	}
	return fmt.Errorf("%s: %w", name, err)
}
