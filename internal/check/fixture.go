package check

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/normalize"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// NormalizeFixture normalizes the fixture side with a context derived from
// the fixture's own header, never the live one: scrubbing is exact-string,
// so a stale recorded cwd would survive a shared context.
func NormalizeFixture(f *scenario.Fixture) (*scenario.Transcript, error) {
	header, _, _ := bytes.Cut(f.Logs[0], []byte("\n"))
	c, err := normalize.FixtureContext(header)
	if err != nil {
		return nil, fmt.Errorf("%s:1: %w", f.LogPaths[0], err)
	}
	return NormalizeSide(c, f.Stdout, f.Logs, f.StdoutPath, f.LogPaths)
}

// fixture is the fixture side of a comparison: the committed files
// normalized, the corpus's rules applied, native logs pinned, and which
// writing mode would rewrite files not in normal form. It is made while
// the agent runs (fixtureSide), which leaves that work off the time a
// check waits after the run.
type fixture struct {
	done  chan struct{}
	want  *scenario.Transcript
	stale Mode
	err   error
}

// fixtureSide starts making the fixture side of s (nothing when it has no
// fixture): np pins native logs, nil for an HTTP agent's.
func fixtureSide(s *scenario.Scenario, r rules, np *nativePins) *fixture {
	fx := &fixture{done: make(chan struct{})}
	f := s.Fixture
	if f == nil {
		close(fx.done)
		return fx
	}
	go func() {
		defer close(fx.done)
		if fx.want, fx.err = NormalizeFixture(f); fx.err != nil {
			return
		}
		r.apply(fx.want)
		if np != nil {
			np.fixture(fx.want)
		}
		fx.stale = staleMode(f, fx.want)
	}()
	return fx
}

// wait returns the fixture side once it is made.
func (fx *fixture) wait() (*scenario.Transcript, Mode, error) {
	<-fx.done
	return fx.want, fx.stale, fx.err
}

// staleFiles says which committed files of f are not byte-identical to their
// normalized form norm: some session log, or stdout.
func staleFiles(f *scenario.Fixture, norm *scenario.Transcript) (logs, stdout bool) {
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
func NormalizeSide(c *normalize.Context, stdout []byte, logs [][]byte, stdoutName string, logNames []string) (*scenario.Transcript, error) {
	text := func(c *normalize.Context) ([]byte, error) { return normalize.Stdout(stdout, c) }
	return normalizeSide(c, normalize.Session, text, logs, stdoutName, logNames)
}

// normalizeSide is NormalizeSide with the logs normalized by session and
// stdout by stdout.
func normalizeSide(c *normalize.Context, session func([]byte, *normalize.Context) ([]byte, error), stdout func(*normalize.Context) ([]byte, error), logs [][]byte, stdoutName string, logNames []string) (*scenario.Transcript, error) {
	t := &scenario.Transcript{}
	for i, raw := range logs {
		out, err := session(raw, c)
		if err != nil {
			return nil, positioned(logNames[i], err)
		}
		t.Logs = append(t.Logs, out)
	}
	out, err := stdout(c)
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
// (model.json: the format of `acpsnap new -model`, replay.DecodeModel).
func LoadModel(dir string) (replay.ServerConfig, error) {
	p := filepath.Join(dir, scenario.ModelFile)
	f, err := os.Open(p)
	if err != nil {
		return replay.ServerConfig{}, fmt.Errorf("check: load the authored model: %w", err)
	}
	defer f.Close()
	cfg, err := replay.DecodeModel(f, p)
	if err != nil {
		return replay.ServerConfig{}, fmt.Errorf("check: %w", err)
	}
	return cfg, nil
}
