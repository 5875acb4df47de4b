package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"slices"
	"strings"

	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/secrets"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"

	"github.com/acpsnap/acpsnap/agent/launch"
	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/scenario"
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

// scanEnviron is the environment the secret scan takes its values from:
// acpsnap's own, and the key-looking variables of ./.env, in every mode
// (an agent can read the repository's .env in a replay as well as in
// record, and print what it found). A .env that cannot be read adds
// nothing here; record reports it.
func (e *env) scanEnviron() []string {
	b, err := safefile.Read(".env", 1<<20)
	if err != nil {
		return e.environ
	}
	dot, err := godotenv.UnmarshalBytes(b)
	if err != nil {
		return e.environ
	}
	out := slices.Clone(e.environ)
	for _, k := range slices.Sorted(maps.Keys(dot)) {
		if secrets.LooksSecret(k) {
			out = append(out, k+"="+dot[k])
		}
	}
	return out
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
	vals, from := map[string]string{}, map[string]string{}
	for _, k := range append([]string{urlEnv}, keyEnvs...) {
		if v := e.getenv(k); v != "" {
			vals[k], from[k] = v, "the environment"
		} else if v := dot[k]; v != "" {
			vals[k], from[k] = v, "./.env"
		}
	}
	key := keyEnvs[0] // the first one set wins
	for _, k := range keyEnvs {
		if vals[k] != "" {
			key = k
			break
		}
	}
	if vals[key] == "" {
		return nil, usagef("record needs %s (in the environment or .env) for the %s upstream; %s may point at any compatible server", strings.Join(keyEnvs, " or "), corpus.Model.Dialect, urlEnv)
	}
	if from[key] == "the environment" && from[urlEnv] == "./.env" {
		return nil, usagef("record: %s comes from the environment but %s from ./.env: a key of yours goes only to a URL you set; set %s in the environment (or put the key in ./.env too)", key, urlEnv, urlEnv)
	}
	target, source := upstreamDefault(corpus.Model.Dialect), "the "+corpus.Model.Dialect+" default"
	if vals[urlEnv] != "" {
		target, source = vals[urlEnv], urlEnv+" from "+from[urlEnv]
	}
	host := target
	if u, err := url.Parse(target); err == nil && u.Host != "" {
		host = u.Host
	}
	fmt.Fprintf(e.stderr, "acpsnap: record: %s (from %s) goes to %s (%s)\n", key, from[key], console.Line(host), source) // a .env may set the host
	return vals, nil
}

// upstreamDefault is the dialect's public base URL ("" for an unknown one).
func upstreamDefault(name string) string {
	if d, err := dialect.Lookup(name); err == nil {
		return d.Upstream
	}
	return ""
}
