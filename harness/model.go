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

	"github.com/acpsnap/acpsnap/llmreplay/proxy"
	"github.com/acpsnap/acpsnap/llmreplay/wire/dialect"
	"github.com/acpsnap/acpsnap/normalize"
	"github.com/acpsnap/acpsnap/scenario"
	"github.com/acpsnap/acpsnap/sessionlog"
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
	// Pins are the corpus's pins of system prompts and tool schemas; nil:
	// none. The harness composes with them (Update set, so a changed
	// prompt updates them in memory: Result.Pins tells).
	Pins *sessionlog.Pins
}

// modelRun is the proxy of one run.
type modelRun struct {
	cfg   *Model
	proxy *proxy.Proxy
	hung  chan struct{} // closed when a hangAfter override stalls: the model is streaming
	once  sync.Once
	paths pathTokens
	ids   *liveIDs
}

// startModel starts the proxy of the run: in replay it serves the
// exchanges of the scenario's committed session log.
func (r *run) startModel(ctx context.Context) (*modelRun, error) {
	mc := r.cfg.Model
	if mc == nil {
		return nil, nil
	}
	m := &modelRun{cfg: mc, hung: make(chan struct{}), paths: newPathTokens(r.roots), ids: &liveIDs{m: map[string]string{}}}
	pc := proxy.Config{Dialect: mc.Dialect, Normalize: m.normalize, Expand: m.expand, Ignore: mc.Ignore,
		OnHang: func(int) { m.once.Do(func() { close(m.hung) }) }}
	if r.cfg.Mode == "record" {
		pc.Mode, pc.Upstream, pc.Key = proxy.Record, mc.Upstream, mc.Key
		if d, err := dialect.Lookup(mc.Dialect); err == nil && pc.Upstream == "" {
			pc.Upstream = d.Upstream // an unknown dialect fails in proxy.Start
		}
	} else {
		xs, err := fixtureExchanges(r.cfg.Dir, mc.Pins)
		if err != nil {
			return nil, invalidScenario(err)
		}
		pc.Exchanges = xs
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

// fixtureExchanges decomposes the committed session log: the replay source.
func fixtureExchanges(dir string, pins *sessionlog.Pins) ([]sessionlog.Exchange, error) {
	path := filepath.Join(dir, scenario.SessionFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil // not recorded yet: every request is a drift
	}
	if err != nil {
		return nil, err
	}
	_, xs, err := sessionlog.Decompose(b, path, pins)
	return xs, err
}

// normalize turns the live values of one payload into tokens: the run's
// paths (and the dash-encoded cwd slug some agents use for folder names),
// ids the proxy served, then normalize's rules and the scrub rules. Each
// payload gets a context of its own, so its numbering does not depend on
// the order concurrent conversations arrive in.
func (m *modelRun) normalize(b []byte) ([]byte, error) {
	b = m.ids.tokenize(m.paths.tokenize(b))
	c := normalize.NewContext(m.paths.cwd, m.paths.cwdAliases...)
	c.AddPath("home", m.paths.home, m.paths.homeAliases...)
	c.AddPath("root", m.paths.root, m.paths.rootAliases...)
	out, err := normalize.Stdout(append(compact(b), '\n'), c)
	if err != nil {
		return nil, err
	}
	out = bytes.TrimSuffix(out, []byte("\n"))
	if m.cfg.Scrub != nil {
		out = m.cfg.Scrub(out)
	}
	return out, nil
}

// expand turns the tokens of a served payload back into live values.
func (m *modelRun) expand(b []byte) []byte {
	return m.ids.expand(m.paths.expand(b))
}

// compact makes a JSON payload one line (normalize reads lines).
func compact(b []byte) []byte {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// pathTokens are the run's paths and their tokens, for payloads that
// travel to and from the model.
type pathTokens struct {
	cwd, home, root                      string
	cwdAliases, homeAliases, rootAliases []string
	replacer, reverse                    *strings.Replacer
}

func newPathTokens(rts *roots) pathTokens {
	p := pathTokens{cwd: rts.cwd, home: rts.home, root: rts.base,
		cwdAliases: normalize.Aliases(rts.cwd), homeAliases: normalize.Aliases(rts.home), rootAliases: normalize.Aliases(rts.base)}
	// The slug spelling ("/tmp/x/workspace" → "-tmp-x-workspace") is not a
	// path, so normalize cannot know it; it becomes {{cwdSlug}} here.
	var pairs []string
	for _, c := range append([]string{p.cwd}, p.cwdAliases...) {
		pairs = append(pairs, slug(c), "{{cwdSlug}}")
	}
	p.replacer = strings.NewReplacer(pairs...)
	p.reverse = strings.NewReplacer("{{cwdSlug}}", slug(p.cwd), "{{cwd}}", p.cwd, "{{home}}", p.home, "{{root}}", p.root)
	return p
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
func (p pathTokens) expand(b []byte) []byte   { return []byte(p.reverse.Replace(string(b))) }

// liveIDs gives each {{id:N}} token the proxy serves a fresh UUID for the
// run, and maps it back when the agent sends it again.
type liveIDs struct {
	mu sync.Mutex
	m  map[string]string // token → live value
	r  map[string]string // live value → token
}

var idToken = regexp.MustCompile(`\{\{id:[1-9][0-9]*\}\}`)

func (l *liveIDs) expand(b []byte) []byte {
	if !bytes.Contains(b, []byte("{{id:")) {
		return b
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return idToken.ReplaceAllFunc(b, func(tok []byte) []byte {
		v, ok := l.m[string(tok)]
		if !ok {
			v = newUUID()
			l.m[string(tok)] = v
			if l.r == nil {
				l.r = map[string]string{}
			}
			l.r[v] = string(tok)
		}
		return []byte(v)
	})
}

func (l *liveIDs) tokenize(b []byte) []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	for v, tok := range l.r {
		b = bytes.ReplaceAll(b, []byte(v), []byte(tok))
	}
	return b
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
	pairs := []string{"{{home}}", r.roots.home, "{{cwd}}", r.roots.cwd, "{{root}}", r.roots.base, "{{corpus}}", r.cfg.CorpusDir, "{{path}}", path}
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
	h := sessionlog.ComposedHeader{Cwd: r.roots.cwd, Dialect: m.cfg.Dialect, Agent: r.agentInfo}
	if len(r.sessions) > 0 {
		h.ID = r.sessions[0]
	}
	log, err := sessionlog.Compose(rep.Exchanges, h, m.cfg.Pins)
	if err != nil {
		return append(errs, err)
	}
	res.Logs = []Log{{Raw: log}}
	res.Pins = m.cfg.Pins
	return errs
}

// settle waits until stdout has been quiet for d (bounded by the step
// timeout): agents that emit late notifications after a prompt answers.
func (r *run) settle(d time.Duration) {
	if d <= 0 {
		return
	}
	deadline := time.Now().Add(r.cfg.StepTimeout)
	n, quietSince := r.agent.lineCount(), time.Now()
	for time.Now().Before(deadline) && time.Since(quietSince) < d {
		time.Sleep(min(d/4, 20*time.Millisecond))
		if c := r.agent.lineCount(); c != n {
			n, quietSince = c, time.Now()
		}
	}
}
