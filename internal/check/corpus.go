package check

import (
	"cmp"
	"fmt"
	"maps"
	"path/filepath"

	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/wire/dialect"
)

// applyCorpus sets what acpsnap.yml and the manifest say about the agent
// on hc: its templated environment, home seed, shutdown policy, settle
// time and, for an agent that talks to its model over HTTP, the model
// proxy. The live model's key then stays with the proxy: it never reaches
// the agent.
func (ck *checker) applyCorpus(hc *harness.Config) error {
	cfg, m, r := ck.cfg, ck.s.Manifest, ck.rules
	c := cfg.Corpus
	root := ck.root()
	abs, err := filepath.Abs(root)
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	hc.CorpusDir = abs // {{corpus}}: the agent starts in a folder of its own
	if len(hc.Agent) == 0 {
		hc.Agent = c.Agent.Command
	}
	hc.Env = maps.Clone(c.Agent.Env)
	if len(m.Agent.Env) > 0 {
		if hc.Env == nil {
			hc.Env = map[string]string{}
		}
		maps.Copy(hc.Env, m.Agent.Env)
	}
	if c.Agent.Home != "" {
		hc.HomeSeed = filepath.Join(root, c.Agent.Home)
	}
	hc.TermShutdown = c.Agent.Shutdown == scenario.ShutdownTerm
	hc.Grace = cmp.Or(hc.Grace, c.Agent.Grace)               // -grace wins
	hc.StepTimeout = cmp.Or(hc.StepTimeout, c.Agent.Timeout) // -timeout wins
	hc.Settle, hc.Ready = c.Settle, c.Ready.Update
	if c.Native() {
		return nil
	}
	hc.Model = &harness.Model{Dialect: c.Model.Dialect, Ignore: c.Model.Ignore, Pins: ck.pins, MaxCalls: c.Model.MaxCalls}
	if len(r.scrub) > 0 {
		hc.Model.Scrub = r.scrubLines
	}
	if cfg.Mode == Record {
		urlEnv, keyEnvs := Upstream(c)
		hc.Model.Upstream = cfg.Secrets[urlEnv]
		for _, k := range keyEnvs {
			hc.Model.Key = cmp.Or(hc.Model.Key, cfg.Secrets[k])
		}
	}
	hc.Secrets = nil
	return nil
}

// Upstream names the variables of the corpus's live model: acpsnap.yml's
// model.upstream, else the dialect's (the dialect table's URLEnv and
// KeyEnv). Of several key variables the first one set wins.
func Upstream(c *scenario.Corpus) (urlEnv string, keyEnvs []string) {
	if d, err := dialect.Lookup(c.Model.Dialect); err == nil {
		urlEnv, keyEnvs = d.URLEnv, d.KeyEnv
	}
	if c.Model.Upstream.URLEnv != "" {
		urlEnv = c.Model.Upstream.URLEnv
	}
	if c.Model.Upstream.KeyEnv != "" {
		keyEnvs = []string{c.Model.Upstream.KeyEnv}
	}
	return urlEnv, keyEnvs
}
