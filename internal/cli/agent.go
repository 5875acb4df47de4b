package cli

import (
	"cmp"
	"errors"
	"io/fs"
	"slices"
	"strings"

	"github.com/acpsnap/acpsnap/agent/launch"
	"github.com/acpsnap/acpsnap/check"
	"github.com/acpsnap/acpsnap/scenario"
	"github.com/joho/godotenv"
)

// agent runs the reference agent on stdin/stdout (package agent/launch says
// how its environment selects the model).
func (e *env) agent(args []string) error {
	fset := e.flags("agent")
	if err := parse(fset, args); err != nil {
		return err
	}
	ctx, stop := interruptible()
	defer stop()
	err := launch.Main(ctx, launch.Process{Getenv: e.getenv, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr})
	var ue *launch.UsageError
	if errors.As(err, &ue) {
		return usagef("%v", ue.Err)
	}
	return err
}

// liveSecrets are the variables a record run passes to the agent.
func (e *env) liveSecrets() (map[string]string, error) {
	s, err := launch.LiveSecrets(e.getenv, ".env")
	var ue *launch.UsageError
	if errors.As(err, &ue) {
		return nil, usagef("%v", ue.Err)
	}
	return s, err
}

// recordSecrets are what a record run needs of the live model: for a
// native corpus the reference agent's DEEPSEEK_* (passed to the agent),
// else the upstream's base URL and key named by acpsnap.yml (kept by the
// proxy; the agent never sees them), from the environment or ./.env.
func (e *env) recordSecrets(corpus *scenario.Corpus) (map[string]string, error) {
	if corpus == nil || corpus.Native() {
		return e.liveSecrets()
	}
	urlEnv, keyEnvs := check.Upstream(corpus)
	dot, err := godotenv.Read(".env")
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, usagef("read .env: %v", err)
	}
	vals := map[string]string{}
	for _, k := range append([]string{urlEnv}, keyEnvs...) {
		if v := cmp.Or(e.getenv(k), dot[k]); v != "" {
			vals[k] = v
		}
	}
	if !slices.ContainsFunc(keyEnvs, func(k string) bool { return vals[k] != "" }) {
		return nil, usagef("record needs %s (in the environment or .env) for the %s upstream; %s may point at any compatible server", strings.Join(keyEnvs, " or "), corpus.Model.Dialect, urlEnv)
	}
	return vals, nil
}
