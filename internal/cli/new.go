package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/acpsnap/acpsnap/llmreplay"
	"github.com/acpsnap/acpsnap/snapshots"
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

// newScenario scaffolds a scenario and, with -model, records it once through
// the real DeepSeek adapter against llmreplay's scripted server.
func (e *env) newScenario(args []string) int {
	fset := e.flags("new")
	dir := fset.String("dir", "snapshots", "the corpus `folder`")
	model := fset.String("model", "", "record against this scripted model `file` (a JSON array of replay entries, or {\"primary\":[…],\"children\":{…}})")
	agentFlag := fset.String("agent", "", "the agent `command` line (default: the bundled agent)")
	if err := parse(fset, args); err != nil {
		return e.exit(err)
	}
	if fset.NArg() != 1 || !kebab.MatchString(fset.Arg(0)) {
		return e.exit(usagef("new: want exactly one kebab-case scenario NAME (category first, e.g. tool-bash), got %q", fset.Args()))
	}
	name := fset.Arg(0)
	sdir := filepath.Join(*dir, name)
	created, err := scaffold(sdir, name, *model != "")
	if err != nil {
		return e.exit(err)
	}
	if created {
		fmt.Fprintf(e.stdout, "scaffolded %s (edit %s and %s)\n", sdir, snapshots.ManifestFile, snapshots.InputFile)
	}
	if *model == "" {
		fmt.Fprintf(e.stdout, "record it with: acpsnap record -run '^%s$' (or: acpsnap new -model FILE %s)\n", name, name)
		return ExitOK
	}
	if _, err := os.Stat(filepath.Join(sdir, snapshots.SessionFile)); err == nil {
		return e.exit(usagef("new: %s is already recorded; use 'acpsnap refresh' or 'acpsnap record'", sdir))
	}
	agent, err := e.agentCommand(*agentFlag)
	if err != nil {
		return e.exit(err)
	}
	o, err := recordScripted(sdir, *model, snapshots.Config{Agent: agent, Environ: e.environ})
	if err != nil {
		return e.exit(err)
	}
	p := &printer{w: e.stdout, accept: func(snapshots.Outcome) string { return "" }}
	p.outcome(o)
	if o.Status != snapshots.Passed {
		return ExitFailed
	}
	return ExitOK
}

// scaffold creates the scenario folder with a manifest and a client script
// unless it already has them; it reports whether it created anything.
func scaffold(sdir, name string, scripted bool) (bool, error) {
	if _, err := os.Stat(filepath.Join(sdir, snapshots.ManifestFile)); err == nil {
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
		snapshots.ManifestFile: fmt.Appendf(nil, scaffoldManifest, name, reason, recording),
		snapshots.InputFile:    []byte(scaffoldInput),
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
// against an llmreplay.Server serving the model file. The recording fails,
// and writes nothing, if the agent left scripted entries unserved.
func recordScripted(sdir, modelPath string, cfg snapshots.Config) (snapshots.Outcome, error) {
	f, err := os.Open(modelPath)
	if err != nil {
		return snapshots.Outcome{}, usagef("new: %v", err)
	}
	scfg, err := llmreplay.DecodeModel(f, modelPath)
	f.Close()
	if err != nil {
		return snapshots.Outcome{}, usagef("new: %v", err)
	}
	srv, err := llmreplay.NewServer(scfg)
	if err != nil {
		return snapshots.Outcome{}, fmt.Errorf("new: start scripted model: %w", err)
	}
	defer srv.Close()
	cfg.Mode, cfg.AllRecordings = snapshots.Record, true
	cfg.Secrets = map[string]string{envDeepSeekKey: "scripted-model-no-key", envDeepSeekBaseURL: srv.URL(), envDeepSeekModel: "deepseek-chat"}
	cfg.OnStart = srv.SetReadyDir
	cfg.AfterRun = func() error { return unservedError(srv.Report()) }
	return snapshots.Check(context.Background(), sdir, cfg), nil
}

// unservedError fails a scripted recording that did not use its whole script.
func unservedError(r llmreplay.Report) error {
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
