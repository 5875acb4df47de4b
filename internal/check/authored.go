package check

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// canRender reports whether Scripted can record the scenario: for an
// HTTP corpus always (the scripted server is the proxy's upstream), for a
// native agent when the Config says how to point it at the server; never
// in the override pass of a scripted recording.
func (c *checker) canRender() bool {
	if c.pass.replayOnly {
		return false
	}
	return c.cfg.ScriptedSecrets != nil || c.cfg.Corpus != nil && !c.cfg.Corpus.Native()
}

// hasModel reports whether the scenario is authored and keeps its model
// beside it (model.json).
func hasModel(dir string, m *scenario.Manifest) bool {
	if m.Recording != scenario.RecordingAuthored {
		return false
	}
	_, err := os.Stat(filepath.Join(dir, scenario.ModelFile))
	return err == nil
}

// rerecord is the mode that accepts a change of the model's input: only a
// new recording does, so record for a live scenario, and refresh for an
// authored one that keeps its model.json (refresh re-renders it).
func rerecord(dir string, m *scenario.Manifest) Mode {
	if hasModel(dir, m) {
		return Refresh
	}
	return Record
}

// recordMode is the mode that records a scenario not recorded yet: Record
// for a live one, Refresh for an authored one with its model.json, ""
// when only `acpsnap new -model` can (an authored scenario without one).
func recordMode(dir string, m *scenario.Manifest) Mode {
	switch {
	case m.Recording == scenario.RecordingLive:
		return Record
	case hasModel(dir, m):
		return Refresh
	}
	return ""
}

// render re-renders an authored scenario from its model.json, with the
// check's pins and corpus root.
func (c *checker) render(ctx context.Context) Outcome {
	model, err := LoadModel(c.dir)
	if err != nil {
		return Outcome{Name: filepath.Base(c.dir)}.fail(err)
	}
	return scriptedWrite(ctx, c.dir, model, c.cfg, c.root(), c.pins)
}

// Scripted records the scenario in dir against an replay.Server serving
// model: for an agent that talks to its model over HTTP (cfg.Corpus) as
// the proxy's upstream, in the corpus's dialect; for a native agent
// pointed at it by cfg.ScriptedSecrets (then required). When
// the scenario has a replay override, it then refreshes it so its logs show
// the overridden behaviour (an override changes the replayed script, which
// a recording cannot show). It is how `acpsnap new -model` authors a
// scenario and how Refresh re-renders one. The recording fails, and writes
// nothing, if the agent left scripted entries unserved.
//
// Both passes work in a private copy of the scenario, which is replayed
// once as it stands at the end and takes dir's place only when that
// replay passes: a recording that would not replay writes nothing, not
// even its pins.
func Scripted(ctx context.Context, dir string, model replay.ServerConfig, cfg Config) Outcome {
	root := filepath.Dir(dir)
	return scriptedWrite(ctx, dir, model, cfg, root, newChecker(dir, cfg, pass{root: root}, nil).pins)
}

// scriptedWrite is Scripted of the scenario dir of the corpus at root:
// both passes pin into pins, which the replay before the publish reads.
func scriptedWrite(ctx context.Context, dir string, model replay.ServerConfig, cfg Config, root string, pins *httplog.Pins) Outcome {
	var o Outcome
	verify := verifier(ctx, dir, cfg, pins, root)
	p := pass{direct: true, root: root, home: dir}
	err := safefile.Publish(dir, func(stage string) error {
		o = scripted(ctx, stage, model, cfg, p, pins)
		if o.Status != Passed {
			return errScripted
		}
		return verify(stage)
	})
	o.Name = filepath.Base(dir)
	switch {
	case errors.Is(err, errScripted):
		o.Wrote = nil
	case err != nil:
		return o.refused(err)
	}
	return o
}

// errScripted stops a publish whose scripted passes failed (their outcome
// says why).
var errScripted = errors.New("check: the scripted recording failed")

// scripted runs the passes of Scripted in the private copy dir.
func scripted(ctx context.Context, dir string, model replay.ServerConfig, cfg Config, p pass, pins *httplog.Pins) Outcome {
	o := record(ctx, dir, model, cfg, p, pins)
	if _, err := os.Stat(filepath.Join(dir, scenario.OverrideFile)); o.Status != Passed || err != nil {
		return o
	}
	cfg.Mode, cfg.ScriptedSecrets = Refresh, nil
	p.replayOnly = true
	again := newChecker(dir, cfg, p, pins).check(ctx)
	again.Duration += o.Duration
	for _, w := range o.Wrote {
		if !slices.Contains(again.Wrote, w) {
			again.Wrote = append(again.Wrote, w)
		}
	}
	slices.Sort(again.Wrote)
	return again
}

// record is the recording pass of Scripted.
func record(ctx context.Context, dir string, model replay.ServerConfig, cfg Config, p pass, pins *httplog.Pins) Outcome {
	srv, err := serveScript(model, &cfg)
	if err != nil {
		return Outcome{Name: filepath.Base(dir)}.fail(err)
	}
	defer srv.Close()
	cfg.AllRecordings = true
	cfg.AfterRun = func() error { return unservedError(srv.Report()) }
	return newChecker(dir, cfg, p, pins).check(ctx)
}

// serveScript starts a scripted server serving model and points cfg at
// it in Record mode: for an HTTP corpus as the proxy's upstream (the
// script rendered in the corpus's dialect), for a native agent through
// cfg.ScriptedSecrets. The caller closes the server.
func serveScript(model replay.ServerConfig, cfg *Config) (*replay.Server, error) {
	http := cfg.Corpus != nil && !cfg.Corpus.Native()
	if http {
		model.Dialect = cfg.Corpus.Model.Dialect // the dialect-neutral script, rendered in it
	}
	srv, err := replay.NewServer(model)
	if err != nil {
		return nil, fmt.Errorf("check: start the scripted model: %w", err)
	}
	cfg.Mode = Record
	if http {
		// The scripted server is the proxy's upstream.
		urlEnv, keyEnvs := Upstream(cfg.Corpus)
		cfg.Secrets = map[string]string{urlEnv: srv.URL(), keyEnvs[0]: "scripted-model-no-key"}
	} else {
		cfg.Secrets = cfg.ScriptedSecrets(srv.URL())
	}
	cfg.ScriptedSecrets = nil
	cfg.OnStart = func(r harness.Roots) { srv.SetRoots(r.Cwd, r.Home, r.Root) }
	return srv, nil
}

// unservedError fails a scripted recording that did not use its whole script.
func unservedError(r agentenv.Report) error {
	for _, f := range r.Fixtures {
		if f.Left > 0 {
			return fmt.Errorf("scripted model: %s: %d of %d entries never requested (the agent made fewer model calls than the script has)", f.Fixture, f.Left, f.Served+f.Left)
		}
	}
	if len(r.Errors) > 0 {
		return fmt.Errorf("scripted model: %s", r.Errors[0])
	}
	return nil
}
