package cli

// acpsnap init: a starting acpsnap.yml for an agent and a first text-turn
// scenario, the first step of "Adding an agent" (docs/agents.md).

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/frontend"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
)

// initCorpusYAML is the starting acpsnap.yml: the agent command, its
// model's URL and key, and a comment for every setting probe asks about.
const initCorpusYAML = `# Written by acpsnap init. Next: acpsnap probe -dir %[1]s text-turn,
# then settle what it reports here (docs/agents.md, "Adding an agent").
version: 1
agent:
  command: %[2]s
  env:
    # The proxy's URL (some agents want {{model.url}}/v1) and a placeholder key:
    # the agent never holds a real one.
    %[3]s: "{{model.url}}"
    %[4]s: "{{model.key}}"
    # Settings that turn off telemetry, update checks and side requests go
    # here (probe: "network", "model calls beyond the script").
  # shutdown: term     # probe "lifecycle": the agent ignores stdin EOF or is slow to exit on it
  # home: home/        # probe "files written in HOME": a seed copied into the private HOME
model:
  dialect: %[5]s
  # ignore: []         # probe "what varies", request parts that are no part of the question
# scrub: []            # probe "what varies": patterns that replace a varying value
# floating: []         # probe "what varies": update kinds whose place moves
# settle: 300ms        # output that follows a prompt's answer
`

const initManifest = `version: 1
scenario: text-turn
reason: "the agent answers one prompt with text"
recording: authored
permission: auto
`

// initFlags are the flags and command of init.
type initFlags struct {
	dir, dialect string
	command      []string
}

func (e *env) parseInit(args []string) (*initFlags, error) {
	f := &initFlags{}
	fs := e.flags("init")
	fs.StringVar(&f.dir, "dir", "", "the corpus `folder` to start (default: the one found as run finds it, else ./"+frontend.DefaultCorpus+")")
	fs.StringVar(&f.dialect, "dialect", "", "the agent's model `dialect`: "+dialect.List(nil))
	force := fs.Bool("force", false, "write even when CI is set")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if err := e.writeRefused("init", false, *force); err != nil {
		return nil, err
	}
	var err error
	if f.dir, err = findCorpus(f.dir, true); err != nil {
		return nil, err
	}
	f.command = fs.Args()
	if _, err := dialect.Lookup(f.dialect); err != nil {
		return nil, usagef("init: -dialect: %v", err)
	}
	if len(f.command) == 0 {
		return nil, usagef("init: want the agent's command after the flags: acpsnap init -dir D -dialect D -- COMMAND [ARG…]")
	}
	return f, nil
}

// initCorpus writes acpsnap.yml and text-turn/ (snapshot.yml, input.json,
// model.json) into a corpus folder that has neither.
func (e *env) initCorpus(args []string) error {
	f, err := e.parseInit(args)
	if err != nil {
		return err
	}
	yml := filepath.Join(f.dir, scenario.CorpusFile)
	sdir := filepath.Join(f.dir, "text-turn")
	for _, p := range []string{yml, sdir} {
		if _, err := os.Stat(p); err == nil {
			return usagef("init: %s exists already: init starts a corpus, it changes none", p)
		} else if !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	cmd, err := json.Marshal(f.command) // a JSON array is a YAML flow sequence
	if err != nil {
		return err
	}
	d, _ := dialect.Lookup(f.dialect)
	urlEnv, keyEnv := d.URLEnv, d.KeyEnv[0]
	if err := os.MkdirAll(sdir, 0o755); err != nil {
		return err
	}
	files := []struct{ path, content string }{
		{filepath.Join(sdir, scenario.ManifestFile), initManifest},
		{filepath.Join(sdir, scenario.InputFile), scaffoldInput},
		{filepath.Join(sdir, scenario.ModelFile), "[" + probeTextAnswer + "]\n"},
		{yml, fmt.Sprintf(initCorpusYAML, shellQuote(f.dir), cmd, urlEnv, keyEnv, f.dialect)},
	}
	for _, w := range files {
		if err := safefile.Write(w.path, []byte(w.content), 0o644); err != nil {
			return fmt.Errorf("init: %w", err)
		}
	}
	fmt.Fprintf(e.stdout, "wrote %s and %s\nnext: acpsnap probe -dir %s text-turn\n", yml, sdir, shellQuote(f.dir))
	return nil
}
