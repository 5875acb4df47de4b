package check

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/probe"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// Probed is one run of `acpsnap probe`: the scenario run against a
// scripted model, normalized as a check would, nothing written.
type Probed struct {
	// Result is what the harness saw; nil when the agent never started.
	Result *harness.Result
	// Err is the run's error (the agent's exit included); Result and the
	// fields below still hold what happened.
	Err error
	// Stdout is the agent's stdout, normalized, the corpus's and the
	// scenario's scrub and floating rules applied.
	Stdout []byte
	// Requests are the model requests as the composed log keeps them
	// (normalized, scrubbed), in call order, each with the status it was
	// answered with.
	Requests []probe.Request
	// Calls are the requests the scripted model received, in arrival
	// order, raw (Served false: beyond the script).
	Calls []replay.RecordedRequest
	// Home lists the files the agent created or changed in its private
	// HOME (outside its cwd), by path relative to HOME; nil when the run
	// failed before its end.
	Home []HomeFile
}

// HomeFile is a file the agent wrote in its private HOME.
type HomeFile struct {
	Path string // relative to HOME, slash-separated
	Size int64
}

// homeFileCap bounds how many files a probe lists from one HOME.
const homeFileCap = 200

// Probe runs the scenario in dir once against an replay.Server serving
// model (the proxy's upstream, in the corpus's dialect) and writes
// nothing. cfg.Corpus must name an HTTP dialect; the shutdown policy is
// the corpus's.
func Probe(ctx context.Context, dir string, model replay.ServerConfig, cfg Config) Probed {
	if cfg.Corpus == nil || cfg.Corpus.Native() {
		return Probed{Err: errors.New("check: probe needs a corpus whose agent talks to its model over HTTP (acpsnap.yml model.dialect)")}
	}
	s := scenario.Load(dir)
	m := s.Manifest
	if s.ManifestErr != nil {
		return Probed{Err: s.ManifestErr}
	}
	srv, err := serveScript(model, &cfg)
	if err != nil {
		return Probed{Err: err}
	}
	defer srv.Close()
	c := newChecker(dir, cfg, pass{}, nil) // what the log pins stays in memory: a probe writes nothing
	c.s, c.rules = s, rulesFor(cfg.Corpus, m)
	r := c.rules
	hc, err := c.harnessConfig()
	if err != nil {
		return Probed{Err: err}
	}
	var before map[string]fileState
	var p Probed
	hc.OnStart = func(r harness.Roots) {
		srv.SetRoots(r.Cwd, r.Home, r.Root)
		before = homeFiles(r.Home)
	}
	hc.OnEnd = func(cwd string) error {
		p.Home = written(before, homeFiles(homeOf(cwd)))
		return nil
	}
	p.Result, p.Err = harness.Run(ctx, hc)
	p.Calls = srv.Requests()
	if p.Result == nil {
		return p
	}
	got, err := normalizeLive(p.Result)
	if err != nil {
		p.Err = errors.Join(p.Err, err)
		return p
	}
	r.apply(got)
	p.Stdout = got.Stdout
	if len(got.Logs) > 0 {
		_, xs, err := httplog.Decompose(got.Logs[0], "live "+scenario.SessionFile, c.pins)
		if err != nil {
			p.Err = errors.Join(p.Err, fmt.Errorf("check: probe: %w", err))
		}
		p.Requests = requestsOf(xs)
	}
	return p
}

// homeOf is the private HOME of a run whose cwd is cwd: the harness makes
// both in the run's private root (harness.Result, Root/home).
func homeOf(cwd string) string { return filepath.Join(filepath.Dir(cwd), "home") }

// fileState is what tells a written file from a seeded one.
type fileState struct {
	size int64
	mod  time.Time
}

// homeFiles lists the regular files under home (at most homeFileCap+1).
func homeFiles(home string) map[string]fileState {
	out := map[string]fileState{}
	filepath.WalkDir(home, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !d.Type().IsRegular() {
			return nil
		}
		if len(out) > homeFileCap {
			return filepath.SkipAll
		}
		info, err := d.Info()
		if err == nil {
			rel, _ := filepath.Rel(home, path)
			out[filepath.ToSlash(rel)] = fileState{info.Size(), info.ModTime()}
		}
		return nil
	})
	return out
}

// written lists the files of after that before did not have, or had with
// another size or modification time, sorted by path.
func written(before, after map[string]fileState) []HomeFile {
	var out []HomeFile
	for path, st := range after {
		if was, ok := before[path]; ok && was == st {
			continue
		}
		out = append(out, HomeFile{Path: path, Size: st.size})
	}
	slices.SortFunc(out, func(a, b HomeFile) int { return strings.Compare(a.Path, b.Path) })
	return out
}
