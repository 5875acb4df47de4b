package harness

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/acpsnap/acpsnap/harness/internal/harvest"
	"github.com/acpsnap/acpsnap/llmreplay/httplog"
	"github.com/acpsnap/acpsnap/llmreplay/proxy"
	"github.com/acpsnap/acpsnap/llmreplay/wire/dialect"
	"github.com/acpsnap/acpsnap/normalize"
	"github.com/acpsnap/acpsnap/scenario"
)

// Model configures the HTTP model of an agent that does not write its own
// session log: the harness starts a proxy (package llmreplay/proxy) for
// the run, hands the agent its URL and placeholder key through the
// templates of the agent's command and environment, and composes the
// session log from the exchanges (package sessionlog).
type Model struct {
	Dialect string // a name of the dialect table (llmreplay/wire/dialect); required
	// Upstream and Key are the live model's base URL and key (record
	// only). Upstream "": the dialect's public endpoint. The key never
	// reaches the agent.
	Upstream, Key string
	// Ignore lists request parts that are not part of a request's identity.
	Ignore []string
	// Scrub is applied to every normalized payload the proxy keeps and
	// matches (the corpus's scrub rules); nil: nothing.
	Scrub func([]byte) []byte
	// Pins are the corpus's pins of system prompts and tool schemas (the
	// zero value, no Class, pins nothing). The harness replays and composes
	// with a copy and returns it as Result.Pins (with Update set, a changed
	// prompt changes that copy: Result.Pins.Changed); these stay as given.
	Pins httplog.Pins
}

// modelRun is the proxy of one run and the live side's one token context:
// every payload of the run, then (in package check) its stdout, numbers
// its volatile values in this one context, so a tool-call id the model
// gave and the agent repeats on ACP is one token everywhere.
type modelRun struct {
	cfg    *Model
	record bool
	proxy  *proxy.Proxy
	hung   chan struct{} // closed when a hangAfter override stalls: the model is streaming
	sent   [][]byte      // the data of the events the agent got before that stall; set before hung closes
	once   sync.Once
	paths  pathTokens

	mu  sync.Mutex // guards tok: the proxy's handlers run concurrently
	tok *normalize.Context
}

// startModel starts the proxy of the run: in replay it serves the
// exchanges of the scenario's committed session log.
func (r *run) startModel(ctx context.Context) (*modelRun, error) {
	mc := r.cfg.Model
	if mc == nil {
		return nil, nil
	}
	m := &modelRun{cfg: mc, record: r.cfg.Mode == Record, hung: make(chan struct{}), paths: newPathTokens(r.roots), tok: liveContext(r.roots)}
	pc := proxy.Config{Dialect: mc.Dialect, Expand: m.expand, Ignore: mc.Ignore,
		OnHang: func(_ int, sent [][]byte) { m.once.Do(func() { m.sent = sent; close(m.hung) }) }}
	if m.record {
		// Payloads are kept as sent and normalized when the log is
		// composed, in call order: the order replay numbers them in.
		pc.Mode, pc.Upstream, pc.Key = proxy.Record, mc.Upstream, mc.Key
		if d, err := dialect.Lookup(mc.Dialect); err == nil && pc.Upstream == "" {
			pc.Upstream = d.Upstream // an unknown dialect fails in proxy.Start
		}
	} else {
		pins := mc.Pins
		xs, err := fixtureExchanges(r.cfg.Scenario, &pins)
		if err != nil {
			return nil, invalidScenario(err)
		}
		pc.Exchanges, pc.Normalize = xs, m.normalize
	}
	if f := filepath.Join(r.cfg.Dir, scenario.OverrideFile); exists(f) {
		ov, err := proxy.LoadOverrides(f)
		if err != nil {
			return nil, invalidScenario(err)
		}
		pc.Overrides = ov
	}
	p, err := proxy.Start(ctx, pc)
	if err != nil {
		return nil, infrastructure(fmt.Errorf("start the model proxy: %w", err))
	}
	m.proxy = p
	return m, nil
}

// liveContext is the live side's token context of a run: its cwd, home
// and root in every spelling.
func liveContext(rts *harvest.Roots) *normalize.Context {
	c := normalize.NewContext(rts.Cwd, normalize.Aliases(rts.Cwd)...)
	c.AddPath("home", rts.Home, normalize.Aliases(rts.Home)...)
	c.AddPath("root", rts.Base, normalize.Aliases(rts.Base)...)
	return c
}

// fixtureExchanges decomposes the committed session log: the replay source.
// The scenario read it already, unless its fixture is incomplete (no
// stdout.expected.jsonl): then the log is read alone.
func fixtureExchanges(s *scenario.Scenario, pins *httplog.Pins) ([]httplog.Exchange, error) {
	if s.Fixture != nil {
		_, xs, err := httplog.Decompose(s.Fixture.Logs[0], s.Fixture.LogPaths[0], pins)
		return xs, err
	}
	path := filepath.Join(s.Dir, scenario.SessionFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // not recorded yet: every request is a drift
	}
	if err != nil {
		return nil, err
	}
	_, xs, err := httplog.Decompose(b, path, pins)
	return xs, err
}

// normalize turns the live values of one request payload into tokens of
// the run's context: the dash-encoded cwd slug some agents use for folder
// names, then normalize's rules, then the scrub rules.
func (m *modelRun) normalize(b []byte) ([]byte, error) {
	return m.normalizeWith(normalize.Request, b)
}

// normalizeServed is normalize for what the model sent, which replay
// serves again: a payload the rules leave alone keeps its bytes.
func (m *modelRun) normalizeServed(b []byte) ([]byte, error) {
	return m.normalizeWith(normalize.Payload, b)
}

func (m *modelRun) normalizeWith(rules func([]byte, *normalize.Context) ([]byte, error), b []byte) ([]byte, error) {
	m.mu.Lock()
	out, err := rules(m.paths.tokenize(b), m.tok)
	m.mu.Unlock()
	if err != nil {
		return nil, err
	}
	if m.cfg.Scrub != nil {
		out = m.cfg.Scrub(out)
	}
	return out, nil
}

// identifySession numbers a session id the moment session/new answers,
// before any payload that carries it.
func (m *modelRun) identifySession(id string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tok.Identify("session", id)
}

// numberedToken is a token that stands for one value: every identity kind.
var numberedToken = regexp.MustCompile(`\{\{(?:session|toolCall|message|approval|id):[1-9][0-9]*\}\}`)

// expand turns the tokens of a served payload back into live values: the
// run's paths, and for a numbered token the value it already stands for
// in this run, else a fresh UUID bound to it (so the agent never holds a
// token where the recording had a value, and what it sends back, on ACP
// or to the model, normalizes to the same token).
func (m *modelRun) expand(b []byte) []byte {
	b = m.paths.expand(b)
	if !bytes.Contains(b, []byte("{{")) {
		return b
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return numberedToken.ReplaceAllFunc(b, func(tok []byte) []byte {
		if v, ok := m.tok.Value(string(tok)); ok {
			return []byte(v)
		}
		v := newUUID()
		m.tok.Bind(v, string(tok))
		return []byte(v)
	})
}

// normalizeExchanges normalizes what record kept as sent, in call order.
func (m *modelRun) normalizeExchanges(xs []httplog.Exchange) error {
	var errs []error
	for i := range xs {
		x := &xs[i]
		var err error
		if x.Request.Header, err = m.normalizeHeader(x.Request.Header); err != nil {
			errs = append(errs, fmt.Errorf("call %d: request headers: %w", i+1, err))
		}
		if x.Request.Body, err = m.normalizeJSON(m.normalize, x.Request.Body); err != nil {
			errs = append(errs, fmt.Errorf("call %d: request: %w", i+1, err))
		}
		if x.Response.Header, err = m.normalizeHeader(x.Response.Header); err != nil {
			errs = append(errs, fmt.Errorf("call %d: response headers: %w", i+1, err))
		}
		if x.Response.Body, err = m.normalizeJSON(m.normalizeServed, x.Response.Body); err != nil {
			errs = append(errs, fmt.Errorf("call %d: response: %w", i+1, err))
		}
		for j := range x.Response.Events {
			if x.Response.Events[j].Data, err = m.normalizeJSON(m.normalizeServed, x.Response.Events[j].Data); err != nil {
				errs = append(errs, fmt.Errorf("call %d: event %d: %w", i+1, j, err))
			}
		}
	}
	return errors.Join(errs...)
}

// normalizeJSON normalizes a payload that is JSON with rules; anything
// else ("[DONE]") is kept as it is.
func (m *modelRun) normalizeJSON(rules func([]byte) ([]byte, error), b []byte) ([]byte, error) {
	if b == nil || !json.Valid(b) {
		return b, nil
	}
	return rules(b)
}

func (m *modelRun) normalizeHeader(h map[string]string) (map[string]string, error) {
	if len(h) == 0 {
		return h, nil
	}
	b, err := json.Marshal(h)
	if err == nil {
		b, err = m.normalize(b)
	}
	var out map[string]string
	if err == nil {
		err = json.Unmarshal(b, &out)
	}
	return out, err
}

// pathTokens are the run's paths and their tokens, for payloads that
// travel to and from the model.
type pathTokens struct {
	replacer, reverse *strings.Replacer
	paths             *strings.Replacer // normalize's path tokens
}

func newPathTokens(rts *harvest.Roots) pathTokens {
	// The slug spelling ("/tmp/x/workspace" → "-tmp-x-workspace") is not a
	// path, so normalize cannot know it; it becomes {{cwdSlug}} here.
	var pairs []string
	for _, c := range append([]string{rts.Cwd}, normalize.Aliases(rts.Cwd)...) {
		pairs = append(pairs, slug(c), "{{cwdSlug}}")
	}
	return pathTokens{replacer: strings.NewReplacer(pairs...),
		reverse: strings.NewReplacer("{{cwdSlug}}", slug(rts.Cwd)), paths: normalize.Expander(rts.Cwd, rts.Home, rts.Base)}
}

// slug is a path as Claude Code names its per-project folders: every
// character that is not an ASCII letter or digit becomes "-" (one per
// UTF-16 unit: it is JavaScript's replace(/[^a-zA-Z0-9]/g, "-")).
func slug(path string) string {
	var b strings.Builder
	for _, r := range path {
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}

func (p pathTokens) tokenize(b []byte) []byte { return []byte(p.replacer.Replace(string(b))) }
func (p pathTokens) expand(b []byte) []byte {
	return []byte(p.paths.Replace(p.reverse.Replace(string(b))))
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// template fills the placeholders of the agent's command and environment:
// {{model.url}}, {{model.key}}, {{home}}, {{cwd}}, {{root}}, {{corpus}},
// and {{path}}, the PATH the agent would get (so that agent.env can put a
// folder in front of it).
func (r *run) template(m *modelRun, path string) *strings.Replacer {
	pairs := []string{"{{home}}", r.roots.Home, "{{cwd}}", r.roots.Cwd, "{{root}}", r.roots.Base, "{{corpus}}", r.cfg.CorpusDir, "{{path}}", path}
	if m != nil {
		pairs = append(pairs, "{{model.url}}", m.proxy.URL(), "{{model.key}}", m.proxy.Key())
	}
	return strings.NewReplacer(pairs...)
}

// seedHome copies the corpus's home seed into the private HOME, with the
// templates of its text files filled.
func seedHome(src, home string, t *strings.Replacer) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		dst := filepath.Join(home, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(dst, info.Mode().Perm()|0o700)
		case !info.Mode().IsRegular():
			return fmt.Errorf("home seed %s: not a regular file", path)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, []byte(t.Replace(string(b))), info.Mode().Perm())
	})
}

// compose ends the proxy and composes the session log of the run.
func (r *run) compose(m *modelRun, res *Result) []error {
	m.proxy.Close()
	rep := m.proxy.Report()
	res.RequestDrift, res.Drifts = rep.RequestDrift(), rep.Drifts
	var errs []error
	if err := rep.Err(); err != nil {
		errs = append(errs, err)
	}
	if m.record {
		if err := m.normalizeExchanges(rep.Exchanges); err != nil {
			return append(errs, err)
		}
	}
	h := httplog.ComposedHeader{Cwd: r.roots.Cwd, Dialect: m.cfg.Dialect, Agent: r.agentInfo}
	if len(r.sessions) > 0 {
		h.ID = r.sessions[0]
	}
	pins := m.cfg.Pins // composing may change them: the run's own copy
	log, err := httplog.Compose(rep.Exchanges, h, &pins)
	if err != nil {
		return append(errs, err)
	}
	res.Logs = []Log{{Raw: log}}
	res.Pins, res.Tokens = &pins, m.tok
	return errs
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
