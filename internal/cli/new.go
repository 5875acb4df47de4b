package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/acpsnap/acpsnap/agent/deepseek"
	"github.com/acpsnap/acpsnap/agent/launch"
	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/check"
	"github.com/acpsnap/acpsnap/llmreplay"
	"github.com/acpsnap/acpsnap/scenario"
)

var kebab = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

const scaffoldManifest = `version: 1
scenario: %s
reason: %q
recording: %s
permission: auto
`

const scaffoldInput = `{
  "steps": [
    {"op": "initialize"},
    {"op": "newSession"},
    {"op": "prompt", "text": "Say hello."}
  ]
}
`

// newFlags are the flags and argument of new.
type newFlags struct {
	dir, model, agent, name string
	force                   bool
}

func (e *env) parseNew(args []string) (*newFlags, error) {
	f := &newFlags{}
	fset := e.flags("new")
	fset.StringVar(&f.dir, "dir", "snapshots", "the corpus `folder`")
	fset.StringVar(&f.model, "model", "", "record against this scripted model `file` (a JSON array of replay entries, or {\"primary\":[…],\"children\":{…}})")
	fset.StringVar(&f.agent, "agent", "", "the agent `command` line (default: the bundled agent)")
	fset.BoolVar(&f.force, "force", false, "write fixtures even when CI is set")
	if err := parse(fset, args); err != nil {
		return nil, err
	}
	if fset.NArg() != 1 || !kebab.MatchString(fset.Arg(0)) {
		return nil, usagef("new: want exactly one kebab-case scenario NAME (category first, e.g. tool-bash), got %q", fset.Args())
	}
	f.name = fset.Arg(0)
	if f.model != "" && e.getenv("CI") != "" && !f.force {
		return nil, usagef("new -model writes fixtures and CI is set: refusing (pass -force to write anyway)")
	}
	return f, nil
}

// newScenario scaffolds a scenario and, with -model, records it once through
// the real DeepSeek adapter against llmreplay's scripted server. The model
// file is read before anything is scaffolded, so a bad one leaves no folder.
func (e *env) newScenario(args []string) int {
	f, err := e.parseNew(args)
	if err != nil {
		return e.exit(err)
	}
	var model llmreplay.ServerConfig
	if f.model != "" {
		if model, err = readModel(f.model); err != nil {
			return e.exit(err)
		}
	}
	sdir := filepath.Join(f.dir, f.name)
	created, err := scaffold(sdir, f.name, f.model != "")
	if err != nil {
		return e.exit(err)
	}
	if created {
		fmt.Fprintf(e.stdout, "scaffolded %s (edit %s and %s)\n", sdir, scenario.ManifestFile, scenario.InputFile)
	}
	if f.model == "" {
		fmt.Fprintf(e.stdout, "record it with: acpsnap record -run '^%s$' (or: acpsnap new -model FILE %s)\n", f.name, f.name)
		return ExitOK
	}
	return e.recordNew(sdir, f, model)
}

// recordNew records a scaffolded scenario against the scripted model.
func (e *env) recordNew(sdir string, f *newFlags, model llmreplay.ServerConfig) int {
	if _, err := os.Stat(filepath.Join(sdir, scenario.SessionFile)); err == nil {
		return e.exit(usagef("new: %s is already recorded; use 'acpsnap refresh' or 'acpsnap record'", sdir))
	}
	corpus, err := scenario.LoadCorpus(filepath.Dir(sdir))
	if err != nil {
		return e.exit(usagef("%v", err))
	}
	agent, err := e.agentCommand(f.agent, corpus)
	if err != nil {
		return e.exit(err)
	}
	ctx, stop := interruptible()
	defer stop()
	o, err := recordScripted(ctx, sdir, model, check.Config{Agent: agent, Environ: e.environ, Corpus: corpus})
	if err != nil {
		return e.exit(err)
	}
	p := &printer{w: e.stdout, accept: func(check.Outcome) string { return "" }}
	p.outcome(o)
	if o.Status != check.Passed {
		return ExitFailed
	}
	return ExitOK
}

// readModel decodes a model file for the scripted server.
func readModel(path string) (llmreplay.ServerConfig, error) {
	f, err := os.Open(path)
	if err != nil {
		return llmreplay.ServerConfig{}, usagef("new: %v", err)
	}
	defer f.Close()
	cfg, err := llmreplay.DecodeModel(f, path)
	if err != nil {
		return llmreplay.ServerConfig{}, usagef("new: %v", err)
	}
	return cfg, nil
}

// scaffold creates the scenario folder with a manifest and a client script
// unless it already has them; it reports whether it created anything.
func scaffold(sdir, name string, scripted bool) (bool, error) {
	if _, err := os.Stat(filepath.Join(sdir, scenario.ManifestFile)); err == nil {
		return false, nil
	}
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		return false, err
	}
	recording, reason := "live", "TODO: one line on what this scenario proves"
	if scripted {
		recording = "authored"
	}
	files := map[string][]byte{
		scenario.ManifestFile: fmt.Appendf(nil, scaffoldManifest, name, reason, recording),
		scenario.InputFile:    []byte(scaffoldInput),
	}
	for f, b := range files {
		p := filepath.Join(sdir, f)
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return false, err
		}
	}
	return true, nil
}

// recordScripted records the scenario in sdir through the DeepSeek adapter
// against an llmreplay.Server serving model. The recording fails, and
// writes nothing, if the agent left scripted entries unserved.
// recordScripted records the scenario sdir against a scripted model
// server: for a native corpus through the reference agent's DeepSeek
// adapter, for an HTTP-model corpus as the upstream of the proxy, in the
// corpus's dialect (the dialect-neutral script rendered into it).
func recordScripted(ctx context.Context, sdir string, model llmreplay.ServerConfig, cfg check.Config) (check.Outcome, error) {
	if cfg.Corpus != nil && !cfg.Corpus.Native() {
		model.Dialect = cfg.Corpus.Model.Dialect
	}
	srv, err := llmreplay.NewServer(model)
	if err != nil {
		return check.Outcome{}, fmt.Errorf("new: start scripted model: %w", err)
	}
	defer srv.Close()
	cfg.Mode, cfg.AllRecordings = check.Record, true
	cfg.Secrets = map[string]string{launch.KeyVar: "scripted-model-no-key", launch.BaseURLVar: srv.URL(), launch.ModelVar: deepseek.DefaultModel}
	if cfg.Corpus != nil && !cfg.Corpus.Native() {
		urlEnv, keyEnv := check.Upstream(cfg.Corpus)
		cfg.Secrets = map[string]string{urlEnv: srv.URL(), keyEnv: "scripted-model-no-key"}
	}
	cfg.OnStart = srv.SetReadyDir
	cfg.AfterRun = func() error { return unservedError(srv.Report()) }
	return check.Check(ctx, sdir, cfg), nil
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
