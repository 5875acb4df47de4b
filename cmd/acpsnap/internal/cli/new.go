package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/acpsnap/acpsnap/agent/launch"
	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/frontend"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/replay"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
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
	force, offline          bool
}

// maxNameLen bounds a scenario name: a file system's 255-byte name limit,
// less room for what acpsnap puts beside a scenario (".<name>.publish-<pid>-<random>").
const maxNameLen = 200

func (e *env) parseNew(args []string) (*newFlags, error) {
	f := &newFlags{}
	fset := e.flags("new")
	fset.StringVar(&f.dir, "dir", "", "the corpus `folder` (default: the one found as run finds it, else ./"+frontend.DefaultCorpus+")")
	fset.StringVar(&f.model, "model", "", "record against this scripted model `file` (a JSON array of replay entries, or {\"primary\":[…],\"children\":{…}})")
	fset.StringVar(&f.agent, "agent", "", "the agent `command` line (default: the bundled agent)")
	fset.BoolVar(&f.force, "force", false, "write even when CI is set; with -model, re-author a scenario already recorded")
	fset.BoolVar(&f.offline, "offline", false, "record in a loopback-only network namespace and report the lookups tried (without -model: say to record with record -offline)")
	if err := parse(fset, args); err != nil {
		return nil, err
	}
	if fset.NArg() != 1 || !kebab.MatchString(fset.Arg(0)) {
		return nil, usagef("new: want exactly one kebab-case scenario NAME (category first, e.g. tool-bash), got %q", fset.Args())
	}
	f.name = fset.Arg(0)
	if len(f.name) > maxNameLen {
		return nil, usagef("new: scenario NAME is %d bytes, more than the %d a scenario folder may have (with what acpsnap puts beside it)", len(f.name), maxNameLen)
	}
	what := "new"
	if f.model != "" {
		what = "new -model"
	}
	if err := e.writeRefused(what, false, f.force); err != nil {
		return nil, err // scaffolding writes the scenario's files too
	}
	var err error
	if f.dir, err = findCorpus(f.dir, true); err != nil {
		return nil, err
	}
	return f, nil
}

// newScenario scaffolds a scenario and, with -model, authors it: the
// scenario becomes recording: authored, the model file is kept beside it as
// model.json, and it is recorded once through the real DeepSeek adapter
// against llmreplay's scripted server (refresh re-renders it from
// model.json after an edit). The model file is read before anything is
// scaffolded, so a bad one leaves no folder.
func (e *env) newScenario(args []string) int {
	f, err := e.parseNew(args)
	if err != nil {
		return e.exit(err)
	}
	if f.offline && f.model != "" { // the scripted model is inside the namespace too
		return e.offline(os.Args, false, func() int { return e.newParsed(f) })
	}
	return e.newParsed(f)
}

// newParsed runs new with its parsed flags.
func (e *env) newParsed(f *newFlags) int {
	var err error
	var model replay.ServerConfig
	var modelBytes []byte
	if f.model != "" {
		if model, modelBytes, err = readModel("new", f.model); err != nil {
			return e.exit(err)
		}
	}
	sdir := filepath.Join(f.dir, f.name)
	created, err := scaffold(sdir, f.name, f.model != "")
	if err != nil {
		return e.exit(err)
	}
	if created {
		fmt.Fprintf(e.stdout, "scaffolded %s (edit the reason in %s, and %s)\n", sdir, scenario.ManifestFile, scenario.InputFile)
	}
	if f.model == "" {
		var offline []string
		if f.offline {
			offline = []string{"-offline"}
		}
		fmt.Fprintf(e.stdout, "record it with: %s (or: %s)\n",
			commandFor("record", f.dir, f.agent, append(offline, "-run", shellQuote("^"+f.name+"$"))...),
			commandFor("new", f.dir, f.agent, append(offline, "-model", "FILE", f.name)...))
		return ExitOK
	}
	if err := e.author(sdir, f, modelBytes); err != nil {
		return e.exit(err)
	}
	return e.recordNew(sdir, f, model)
}

// author makes a scaffolded scenario authored: recording: authored in its
// manifest, its model kept as model.json. A scenario already recorded is
// re-authored only with -force.
func (e *env) author(sdir string, f *newFlags, model []byte) error {
	if _, err := os.Stat(filepath.Join(sdir, scenario.SessionFile)); err == nil && !f.force {
		return usagef("new: %s is already recorded; after editing its %s re-render it with '%s', or re-author it with '%s'",
			sdir, scenario.ModelFile, commandFor("refresh", f.dir, f.agent, "-run", shellQuote("^"+f.name+"$")),
			commandFor("new", f.dir, f.agent, "-model", "FILE", "-force", f.name))
	}
	if err := makeAuthored(filepath.Join(sdir, scenario.ManifestFile)); err != nil {
		return err
	}
	dst := filepath.Join(sdir, scenario.ModelFile)
	if same(f.model, dst) {
		return nil
	}
	if err := safefile.Write(dst, model, 0o644); err != nil {
		return fmt.Errorf("new: keep the model: %w", err)
	}
	return nil
}

var liveLine = regexp.MustCompile(`(?m)^recording:[ \t]*live[ \t]*$`)

// makeAuthored turns "recording: live" into "recording: authored" in the
// manifest at path, leaving every other byte alone.
func makeAuthored(path string) error {
	m, err := scenario.LoadManifest(path)
	if err != nil || m.Recording == scenario.RecordingAuthored {
		return nil // an invalid manifest is reported by the recording
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !liveLine.Match(b) {
		return usagef("new: %s: set recording: authored (the model of -model is authored)", path)
	}
	return safefile.Write(path, liveLine.ReplaceAll(b, []byte("recording: authored")), 0o644)
}

// same reports whether a and b are the same file.
func same(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// recordNew records a scaffolded scenario against the scripted model.
func (e *env) recordNew(sdir string, f *newFlags, model replay.ServerConfig) int {
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
	cfg := check.Config{Settings: harness.Settings{Agent: agent, Environ: e.scanEnviron(), Acpsnap: acpsnapBinary()}, Corpus: corpus, ScriptedSecrets: launch.ScriptedEnv}
	e.offlineSettings(&cfg.Settings, false)
	o := check.Scripted(ctx, sdir, model, cfg)
	p := &printer{w: e.stdout, accept: func(check.Outcome) string { return "" }}
	p.outcome(o)
	if o.Status != check.Passed {
		// A request value the agent makes anew on every run is settled in
		// acpsnap.yml, and a broken rule of the protocol is the agent's
		// (the reason says so): neither is in model.json.
		var broken *check.Broken
		if !check.Unstable(o) && !errors.As(o.Err, &broken) {
			fmt.Fprintf(e.stdout, "fix %s and re-render it with: %s\n", filepath.Join(sdir, scenario.ModelFile),
				commandFor("refresh", f.dir, f.agent, "-run", shellQuote("^"+f.name+"$")))
		}
		return ExitFailed
	}
	return ExitOK
}

// readModel reads and decodes a model file for the scripted server.
func readModel(cmd, path string) (replay.ServerConfig, []byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return replay.ServerConfig{}, nil, usagef("%s: %v", cmd, err)
	}
	cfg, err := replay.DecodeModel(bytes.NewReader(b), path)
	if err != nil {
		return replay.ServerConfig{}, nil, usagef("%s: %v", cmd, err)
	}
	return cfg, b, nil
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
	recording, reason := scenario.RecordingLive, "TODO: one line on what this scenario proves"
	if scripted {
		recording = scenario.RecordingAuthored
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
