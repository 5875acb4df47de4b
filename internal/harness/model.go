package harness

import (
	"context"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/harness/relay"
	"github.com/acpsnap/acpsnap/internal/httplog"
)

// Model configures the HTTP model of an agent that does not write its own
// session log: the harness starts a proxy (package internal/proxy) for
// the run, hands the agent its URL and placeholder key through the
// templates of the agent's command and environment, and composes the
// session log from the exchanges (package sessionlog).
type Model struct {
	Dialect string // a name of the dialect table (internal/wire/dialect); required
	// Upstream and Key are the live model's base URL and key (record
	// only). Upstream "": the dialect's public endpoint. The key never
	// reaches the agent.
	Upstream, Key string
	// Ignore lists request parts that are not part of a request's identity.
	Ignore []string
	// MaxCalls caps the model calls of the run (0: proxy.DefaultMaxCalls);
	// past it a request is refused and the run fails with an error that
	// wraps proxy.ErrTooManyCalls.
	MaxCalls int
	// Scrub is applied to every normalized payload the proxy keeps and
	// matches (the corpus's scrub rules); nil: nothing.
	Scrub func([]byte) []byte
	// Pins are the corpus's pins of system prompts and tool schemas: the
	// committed log is read through them, and the values the composed
	// log's placeholders stand for are kept in them (the caller's overlay,
	// httplog.Pins.Overlay, which it writes or drops); nil: nothing is
	// pinned.
	Pins *httplog.Pins
}

// startModel starts the proxy of the run (package relay): in replay it
// serves the exchanges of the scenario's committed session log. nil: the
// agent is native.
func (r *run) startModel(ctx context.Context) (*relay.Model, error) {
	mc := r.cfg.Model
	if mc == nil {
		return nil, nil
	}
	record := r.cfg.Mode == Record
	src, err := relay.LoadSource(r.cfg.Scenario, r.cfg.Dir, mc.Pins, record)
	if err != nil {
		return nil, invalidScenario(err)
	}
	m, err := relay.StartModel(ctx, relay.ModelConfig{Dialect: mc.Dialect, Upstream: mc.Upstream, Key: mc.Key,
		Ignore: mc.Ignore, Scrub: mc.Scrub, Pins: mc.Pins, Record: record, Roots: r.roots, Dial: r.cfg.UpstreamDial, MaxCalls: mc.MaxCalls}, src)
	if err != nil {
		return nil, infrastructure(err)
	}
	return m, nil
}

// compose ends the proxy and puts the composed session log of the run,
// its token context and drifts into res.
func (r *run) compose(res *Result) []error {
	primary := ""
	if len(r.sessions) > 0 {
		primary = r.sessions[0]
	}
	c, errs := r.model.Compose(r.ctx, primary, r.agentInfo)
	res.RequestDrift, res.Drifts = c.RequestDrift, c.Drifts
	if c.Log != nil {
		res.Logs = []Log{{Raw: c.Log}}
		res.Tokens = c.Tokens
	}
	return errs
}

// template fills the placeholders of the agent's command and environment:
// {{model.url}}, {{model.key}}, {{home}}, {{cwd}}, {{root}}, {{corpus}},
// and {{path}}, the PATH the agent would get (so that agent.env can put a
// folder in front of it).
func (r *run) template(m *relay.Model, path string) *strings.Replacer {
	pairs := []string{"{{home}}", r.roots.Home, "{{cwd}}", r.roots.Cwd, "{{root}}", r.roots.Base, "{{corpus}}", r.cfg.CorpusDir, "{{path}}", path}
	if m != nil {
		pairs = append(pairs, "{{model.url}}", m.URL(), "{{model.key}}", m.Key())
	}
	return strings.NewReplacer(pairs...)
}

// settle waits until stdout has been quiet for d (bounded by the step
// timeout): agents that emit late notifications after a prompt answers.
func (r *run) settle(d time.Duration) {
	if d <= 0 {
		return
	}
	deadline := time.Now().Add(r.cfg.StepTimeout)
	n, quietSince := r.agent.LineCount(), time.Now()
	for time.Now().Before(deadline) && time.Since(quietSince) < d {
		time.Sleep(min(d/4, 20*time.Millisecond))
		if c := r.agent.LineCount(); c != n {
			n, quietSince = c, time.Now()
		}
	}
}
