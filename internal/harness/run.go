package harness

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"github.com/acpsnap/acpsnap/agentenv"
	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/harness/client"
	"github.com/acpsnap/acpsnap/internal/harness/harvest"
	"github.com/acpsnap/acpsnap/internal/harness/proc"
	"github.com/acpsnap/acpsnap/internal/harness/relay"
	"github.com/acpsnap/acpsnap/internal/normalize"
	"github.com/acpsnap/acpsnap/internal/proxy"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/secrets"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// Settings are what every scenario of one run shares: the agent and how
// it runs. Package check's Config embeds them and hands them to each run
// as they are.
type Settings struct {
	Agent       []string          // agent command and arguments (required)
	Mode        Mode              // "": Replay; the agent's model is live in Record only
	Environ     []string          // where PATH and GORACE are taken from; nil: os.Environ()
	Secrets     map[string]string // reach the agent in record mode only
	StepTimeout time.Duration     // 0: DefaultStepTimeout (a step's timeoutMs wins)
	Grace       time.Duration     // 0: DefaultGrace; stdin close → SIGTERM, SIGTERM → SIGKILL
	TempDir     string            // existing folder where the private roots are made; "": os.TempDir()
	OnStart     func(Roots)       // nil: nothing; called after the workspace is seeded, before the agent starts
	// Keep keeps the private roots for inspection: a failed run's error says
	// where; a run that succeeded leaves them to the caller, who may still
	// find the outcome wrong (Result.Release removes them or says where).
	Keep bool
	// Acpsnap is the acpsnap binary, run as the MCP proxy of input.json's
	// mcpServers (docs/cassettes.md); "": "acpsnap" on PATH.
	Acpsnap string
	// Pool keeps the private roots of a run that ended cleanly for the
	// next run, emptied; nil: each run makes and removes its own.
	Pool *RootPool
	// OwnUserNS starts the agent and each of its terminals in a user
	// namespace of its own (Linux, where the kernel allows one; the CLI
	// sets it inside -offline's namespaces): none of them, nor their
	// descendants, can read the environment or the memory of a process
	// outside its own tree. false: they run in acpsnap's.
	OwnUserNS bool
	// UpstreamDial is how the model proxy of a Record run reaches the live
	// model (from inside acpsnap's -offline namespace, its way out); nil:
	// directly.
	UpstreamDial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// The default waits hold for real agents on a busy 2-core CI machine: a
// Node agent that starts in 1–2 s on a quiet one takes over 10 s to answer
// initialize at a load of 8 (Gemini CLI over 30 s at 14), and some take
// over 5 s to exit after a shell command. A hung agent fails within a step's wait and five graces
// (docs/format.md, "Running").
const (
	DefaultStepTimeout = 60 * time.Second // a step's wait (Settings.StepTimeout)
	DefaultGrace       = 10 * time.Second // each stage of shutdown (Settings.Grace)
)

// RootPool keeps the private roots of runs that ended cleanly (no error,
// no process left) for the next run in the same TempDir: emptied, not
// removed, so that a corpus replayed by a few workers makes its folders
// about twice per worker instead of once per scenario. What a run left is
// removed in the background, beside the next run, which takes other
// roots. Close removes what it holds; check.Run makes one per run. The
// zero value is ready; it is safe for concurrent use.
type RootPool struct{ p harvest.Pool }

// Close waits for the roots being emptied and removes the roots the pool
// holds, and returns what removing roots failed with; roots recycled after
// it are removed.
func (p *RootPool) Close() error { return p.p.Close() }

func (p *RootPool) pool() *harvest.Pool {
	if p == nil {
		return nil
	}
	return &p.p
}

// Config says which scenario to run, against which agent, in which mode.
type Config struct {
	Settings
	Dir string // scenario folder: snapshot.yml, input.json, workspace/, fixtures
	// Scenario is Dir as the caller read it already (scenario.Load), so
	// that a run reads the folder once: the manifest, the client script
	// and, for an HTTP model, the committed log it replays; nil: Run loads
	// it.
	Scenario *scenario.Scenario

	// Model is the HTTP model of an agent that writes no session log; nil:
	// the agent is native (it logs and replays by itself, package agentenv).
	Model *Model
	// Env is extra agent environment, templated like Agent (acpsnap.yml's
	// agent.env, then the manifest's agent.env); nil: none.
	Env map[string]string
	// CorpusDir is the corpus root, for {{corpus}}; HomeSeed a folder
	// copied into the private HOME, templated; "": none.
	CorpusDir, HomeSeed string
	// TermShutdown accepts an agent that needs SIGTERM after stdin EOF
	// (acpsnap.yml's shutdown: term); false: it must exit on EOF.
	TermShutdown bool
	// Settle is how long stdout must stay quiet after the last step before
	// shutdown; 0: none.
	Settle time.Duration
	// Ready is a session/update kind every newSession step waits for
	// after session/new answers, within the step's timeout (acpsnap.yml's
	// ready.update: the agent's sign that a session is ready for its first
	// prompt); "": none.
	Ready string
	// OnEnd is called with the scenario cwd after the agent has shut down
	// and before the private roots are removed (to compare or copy the
	// workspace the run left), unless the run already failed; its error
	// fails the run. nil: nothing.
	OnEnd func(cwd string) error
	// OnWire is called with the run's wire, every stdout line, what the
	// client sent and where each incarnation begins, when the steps all
	// succeeded: as it is when the last step has ended, before stdin
	// closes (final false), and then as the Result holds it once the
	// agent's last incarnation has ended without a fault (final true).
	// The wire only grows: two calls with as many stdout lines, messages
	// sent and incarnations see the same wire. It may read them (never
	// change them) in the background, until Run returns and after, to
	// check the wire while the agent exits and Run harvests the logs.
	// nil: nothing.
	OnWire func(stdout [][]byte, sent []Sent, incarnations []int, final bool)
}

// Log is one harvested session log: its raw bytes and its parsed header.
type Log struct {
	Raw    []byte
	Header sessionlog.Header
}

// Result is what happened in one run. Cwd, Home and Root name directories
// that no longer exist when Run returns; normalizers use them, and their
// aliases, as strings. The aliases are computed while the directories
// exist (normalize.Aliases), so a real-path spelling behind a symbolic
// link (a TMPDIR that is a link) is known.
type Result struct {
	Stdout      [][]byte          // every raw stdout line, in wire order, without "\n"
	Logs        []Log             // session logs: primary first, then by createdAt, then id
	Stderr      string            // the agent's stderr (its last MiB)
	Steps       []StepTiming      // one per step run, the failed one included
	Report      *agentenv.Report  // the agent's replay-report.json; nil: none
	Cwd         string            // the scenario cwd the agent ran in
	CwdAliases  []string          // other spellings of Cwd (real path, /private variants)
	Home        string            // the agent's private HOME (Root/home)
	HomeAliases []string          // other spellings of Home
	Root        string            // the run's private root folder, <TempDir>/acpsnap-<pid>-<random>, holding Cwd and Home
	RootAliases []string          // other spellings of Root
	Duration    time.Duration     // agent start to harvest
	Cassettes   map[string][]byte // record mode: the cassettes the agent wrote, by file name
	// Sent is every message the client wrote to the agent's stdin, in
	// order.
	Sent []Sent
	// Incarnations are the index in Stdout of the first line of each
	// incarnation of the agent: [0], and one more per restartAgent step.
	Incarnations []int
	// RequestDrift: an HTTP-model run sent a request the recording does
	// not have (only re-recording accepts that).
	RequestDrift bool
	// Drifts are those requests, each with the nearest recorded call and
	// where it differs.
	Drifts []proxy.Drift
	// Tokens is the live side's token context of a run with an HTTP model,
	// which numbered every payload of the run: normalize the run's logs and
	// stdout with it, so a value the agent repeats keeps its token. nil:
	// a native run (make a Context from Cwd, Home and Root).
	Tokens *normalize.Context
	// Started is when the agent process was started; Shutdown how it ended.
	Started  time.Time
	Shutdown Shutdown
	// Nonce is the part of Root's name that differs from run to run, of one
	// length every run, and NonceFolders the run's folders besides Cwd,
	// Home and Root that hold it (TMPDIR, the sessions folder): what
	// normalize.Context.AddNonce takes.
	Nonce        string
	NonceFolders []string

	kept *harvest.Roots // Config.Keep: the roots left for Release
}

// Sent is one message the client wrote to the agent: After of Stdout's
// lines were recorded before it was written (what the agent wrote in
// answer comes later), to the incarnation of the agent Incarnation
// (0: the first). A message of more than 64 KiB keeps its id, method,
// session and error, not its payload.
type Sent struct {
	Line        []byte
	After       int
	Incarnation int
}

// Release ends a run made with Config.Keep: keep leaves its private roots
// and returns "kept the run's private roots: DIR"; otherwise they are
// removed and it returns "". Without Config.Keep (and on a nil Result)
// the roots are already gone and it does nothing.
func (r *Result) Release(keep bool) (string, error) {
	if r == nil || r.kept == nil {
		return "", nil
	}
	rts := r.kept
	r.kept = nil
	if keep {
		return "kept the run's private roots: " + rts.Base, nil
	}
	if err := rts.Remove(); err != nil {
		return "", infrastructure(fmt.Errorf("harness: remove temporary roots: %w", err))
	}
	return "", nil
}

// Roots are the private folders of one run, as Config.OnStart sees them:
// the scenario cwd, the agent's HOME and the run's root that holds both.
type Roots struct{ Cwd, Home, Root string }

// StepTiming is how long one step took.
type StepTiming struct {
	Op       string
	Start    time.Time
	Duration time.Duration
	Failed   bool // the run stopped at this step
}

// Shutdown is how the agent ended, as measured by the harness.
type Shutdown struct {
	How string // "exited" (on stdin EOF), "sent SIGTERM", "killed with SIGKILL after ignoring SIGTERM"
	// EOF is stdin closing → the agent exiting, or → SIGTERM when it had
	// to be sent; Term is SIGTERM → the agent exiting (0: not sent).
	EOF, Term time.Duration
	// Group is the agent exiting → its process group empty (at most the
	// harness's settle wait, 500 ms); Leftovers: members were still alive
	// then and were killed.
	Group     time.Duration
	Leftovers bool
}

// ErrInvalidScenario is wrapped by Run's errors about the scenario's own
// files (manifest, input), as opposed to the agent's behaviour.
var ErrInvalidScenario = errors.New("invalid scenario")

// ErrInfrastructure is wrapped by Run's errors that say nothing about the
// scenario or the agent: Config.TempDir is missing, the private roots
// cannot be made or removed, the agent command cannot be started.
var ErrInfrastructure = errors.New("harness infrastructure failure")

// kindError is err classified as kind (ErrInvalidScenario,
// ErrInfrastructure) for errors.Is, with err's message.
type kindError struct{ err, kind error }

func (e kindError) Error() string   { return e.err.Error() }
func (e kindError) Unwrap() []error { return []error{e.err, e.kind} }

func invalidScenario(err error) error { return kindError{err, ErrInvalidScenario} }
func infrastructure(err error) error  { return kindError{err, ErrInfrastructure} }

// run is the state of one Run.
type run struct {
	cfg    Config
	ctx    context.Context
	in     *scenario.Input
	roots  *harvest.Roots
	agent  *proc.Agent
	conn   *acp.ClientSideConnection
	timing []StepTiming

	argv, env  []string          // the agent's command and environment, for every incarnation
	root       *os.Root          // the cwd, for the client's fs/*
	cwdAliases []string          // other spellings of the cwd
	terms      *client.Terminals // the agent's terminals
	book       *client.Book      // input.json's answers
	wire       *client.Wire      // the current incarnation's stdin
	restarts   int               // restartAgent steps done
	rawN       int               // raw requests sent (request, requestExpectError)
	stdout     [][]byte          // the stdout lines of every ended incarnation
	stderr     strings.Builder   // the stderr of every ended incarnation
	shutdown   Shutdown          // how the last ended incarnation ended
	// sent is what the client wrote to every ended incarnation, and
	// incarnations where each one's lines begin in stdout.
	sent         []Sent
	incarnations []int

	sessions  []string             // ids from newSession and forkSession; the first is the primary
	current   int                  // index of the current session in sessions
	model     *relay.Model         // the HTTP model's proxy; nil: a native agent
	mcp       relay.MCP            // the proxies of input.json's MCP servers
	agentInfo sessionlog.AgentInfo // from initialize

	failOnce sync.Once
	failed   chan struct{}
	failErr  error
}

// fail fails the run at once (the first cause wins); the running step
// stops and reports it.
func (r *run) fail(err error) {
	r.failOnce.Do(func() {
		r.failErr = err
		close(r.failed)
	})
}

func (r *run) failure() error {
	select {
	case <-r.failed:
		return r.failErr
	default:
		return nil
	}
}

// Run runs the scenario in cfg.Dir against cfg.Agent and returns what
// happened. The Result is non-nil whenever the agent was started, even
// with an error, so callers can show its stderr. The private roots are
// removed before Run returns, whatever happened.
func Run(ctx context.Context, cfg Config) (res *Result, err error) {
	if len(cfg.Agent) == 0 {
		return nil, errors.New("harness: no agent command")
	}
	cfg.Mode = cmp.Or(cfg.Mode, Replay)
	if !cfg.Mode.known() {
		return nil, fmt.Errorf("harness: mode %q, want replay, update, refresh or record", cfg.Mode)
	}
	cfg.StepTimeout = cmp.Or(cfg.StepTimeout, DefaultStepTimeout)
	cfg.Grace = cmp.Or(cfg.Grace, DefaultGrace)
	if cfg.Dir, err = filepath.Abs(cfg.Dir); err != nil {
		return nil, fmt.Errorf("harness: %w", err)
	}
	if cfg.Scenario == nil {
		cfg.Scenario = scenario.Load(cfg.Dir)
	}
	m, in := cfg.Scenario.Manifest, cfg.Scenario.Input
	if err := cmp.Or(cfg.Scenario.ManifestErr, cfg.Scenario.InputErr); err != nil {
		return nil, invalidScenario(err)
	}
	rts, err := harvest.Make(cfg.Pool.pool(), cfg.TempDir, filepath.Join(cfg.Dir, "workspace"))
	if errors.Is(err, harvest.ErrSeed) {
		return nil, invalidScenario(fmt.Errorf("harness: %s: %w", m.Scenario, err))
	}
	if err != nil {
		return nil, infrastructure(fmt.Errorf("harness: %s: %w", m.Scenario, err))
	}
	defer func() {
		if err != nil && cfg.Keep {
			err = fmt.Errorf("%w\nkept the run's private roots: %s", err, rts.Keep())
			return
		}
		if err == nil && cfg.Keep && res != nil {
			res.kept = rts
			return
		}
		remove := rts.Remove
		if err == nil {
			remove = func() error { return cfg.Pool.pool().Recycle(rts) }
		}
		if rerr := remove(); rerr != nil {
			err = errors.Join(err, infrastructure(fmt.Errorf("harness: %s: remove temporary roots: %w", m.Scenario, rerr)))
		}
	}()
	r := &run{cfg: cfg, ctx: ctx, in: in, roots: rts, failed: make(chan struct{})}
	res, errs := r.execute(m)
	if len(errs) == 0 {
		return res, nil
	}
	msg := fmt.Sprintf("harness: %s: %v", m.Scenario, errors.Join(errs...))
	if res != nil && strings.TrimSpace(res.Stderr) != "" {
		msg += "\nagent stderr (last lines):\n" + lastLines(res.Stderr, 20)
	}
	return res, &runError{msg: msg, errs: errs}
}

// runError keeps the causes reachable for errors.Is/As.
type runError struct {
	msg  string
	errs []error
}

func (e *runError) Error() string   { return e.msg }
func (e *runError) Unwrap() []error { return e.errs }

// execute starts the agent, drives the steps, shuts down and harvests.
func (r *run) execute(m *scenario.Manifest) (*Result, []error) {
	model, err := r.startModel(r.ctx)
	if err != nil {
		return nil, []error{err}
	}
	if model != nil {
		r.model = model
		defer model.Close()
	}
	r.mcp = relay.MCP{Acpsnap: r.cfg.Acpsnap, Record: r.cfg.Mode == Record, Dir: r.cfg.Dir, Roots: r.roots}
	argv, env, err := r.command(m, model)
	if err != nil {
		return nil, []error{err}
	}
	if r.cfg.OnStart != nil {
		r.cfg.OnStart(Roots{Cwd: r.roots.Cwd, Home: r.roots.Home, Root: r.roots.Base})
	}
	res := &Result{Cwd: r.roots.Cwd, CwdAliases: normalize.Aliases(r.roots.Cwd),
		Home: r.roots.Home, HomeAliases: normalize.Aliases(r.roots.Home),
		Root: r.roots.Base, RootAliases: normalize.Aliases(r.roots.Base),
		Nonce: r.roots.Nonce, NonceFolders: r.roots.Others()}
	root, err := os.OpenRoot(r.roots.Cwd)
	if err != nil {
		return nil, []error{infrastructure(fmt.Errorf("open the cwd: %w", err))}
	}
	defer root.Close()
	r.argv, r.env, r.root, r.cwdAliases = argv, env, root, res.CwdAliases
	r.terms = client.NewTerminals(terminalEnv(env, r.cfg.Secrets), r.cfg.Grace, r.cfg.OwnUserNS)
	r.book = client.NewBook(r.in)
	start := time.Now()
	if err := r.launch(); err != nil {
		return nil, []error{err}
	}

	var errs []error
	if err := r.runSteps(); err != nil {
		errs = append(errs, err)
	} else {
		r.settle(r.cfg.Settle)
		if r.cfg.OnWire != nil {
			stdout, sent, incarnations := r.wireSoFar()
			r.cfg.OnWire(stdout, sent, incarnations, false)
		}
	}
	ended := r.end(len(errs) > 0)
	res.Started, res.Shutdown = start, r.shutdown
	if len(errs) == 0 {
		if err := r.failure(); err != nil {
			errs = append(errs, err)
		}
	}
	errs = append(errs, ended...)
	res.Stdout, res.Stderr = r.stdout, r.stderr.String()
	res.Sent, res.Incarnations = r.sent, r.incarnations
	if r.cfg.OnWire != nil && len(errs) == 0 {
		r.cfg.OnWire(res.Stdout, res.Sent, res.Incarnations, true)
	}
	res.Steps = r.timing
	errs = append(errs, r.collect(res)...)
	cassettes, mcpErrs := r.mcp.Collect(r.in.MCPServers())
	if res.Cassettes == nil {
		res.Cassettes = cassettes
	} else {
		maps.Copy(res.Cassettes, cassettes)
	}
	errs = append(errs, mcpErrs...)
	res.Duration = time.Since(start)
	if r.cfg.OnEnd != nil && len(errs) == 0 {
		if err := r.cfg.OnEnd(r.roots.Cwd); err != nil {
			errs = append(errs, err)
		}
	}
	return res, errs
}

// command is the agent's command line and environment, templated, with
// its home seeded (model nil: a native agent).
func (r *run) command(m *scenario.Manifest, model *relay.Model) (argv, env []string, err error) {
	env = agentEnv(r.cfg, m, r.roots)
	t := r.template(model, lookupEnv(env, "PATH"))
	argv = make([]string, len(r.cfg.Agent))
	for i, a := range r.cfg.Agent {
		argv[i] = t.Replace(a)
	}
	for _, kv := range sortedEnv(r.cfg.Env) {
		env = setEnv(env, t.Replace(kv))
	}
	if r.cfg.HomeSeed != "" {
		if err := r.roots.SeedHome(r.cfg.HomeSeed, t.Replace); err != nil {
			return nil, nil, invalidScenario(fmt.Errorf("seed the agent's home: %w", err))
		}
	}
	return argv, env, nil
}

// collect harvests the logs and the replay report into res.
func (r *run) collect(res *Result) []error {
	if r.model != nil {
		return r.compose(res)
	}
	var errs []error
	primary := ""
	if len(r.sessions) > 0 {
		primary = r.sessions[0]
	}
	files, err := harvest.Logs(r.roots.Sessions, primary)
	for _, f := range files {
		res.Logs = append(res.Logs, Log{Raw: f.Raw, Header: f.Header})
	}
	if err != nil {
		errs = append(errs, err)
	}
	if r.cfg.Mode == Record {
		res.Cassettes, err = harvest.Cassettes(r.roots.Sessions)
		if err != nil {
			errs = append(errs, err)
		}
	}
	rep, err := harvest.Report(r.roots.Sessions)
	res.Report = rep
	if err == nil && r.cfg.Mode != Record {
		err = harvest.CheckReport(rep, len(files))
	}
	if err != nil {
		errs = append(errs, err)
	}
	return errs
}

// agentEnv builds the agent's environment (package agentenv). An agent
// with an HTTP model gets no part of the native contract (no fixtures, no
// sessions folder to log into): it is tested unchanged.
func agentEnv(cfg Config, m *scenario.Manifest, rts *harvest.Roots) []string {
	h := AgentEnv{
		Mode: cfg.Mode.agent(), SessionsDir: rts.Sessions, Permission: m.Permission,
		Home: rts.Home, TmpDir: rts.Tmp, Root: rts.Base, Env: m.Env, Secrets: cfg.Secrets, From: cfg.Environ,
	}
	if cfg.Model != nil {
		return h.Foreign()
	}
	if f := filepath.Join(cfg.Dir, scenario.SessionFile); exists(f) {
		h.Fixture = f
	}
	h.FixtureChildren = scenario.ChildLogs(cfg.Dir)
	if f := filepath.Join(cfg.Dir, scenario.OverrideFile); exists(f) {
		h.Override = f
	}
	if m.Tools != nil {
		h.ToolCassette = rts.Cassette(cfg.Mode == Record, cfg.Dir, scenario.ToolCassetteFile)
		h.ToolInclude, _ = json.Marshal(m.Tools.Include)
	}
	if m.Subagents != nil {
		h.SubagentCassette = rts.Cassette(cfg.Mode == Record, cfg.Dir, scenario.SubagentCassetteFile)
		h.SubagentOptions, _ = json.Marshal(m.Subagents.Cassette)
	}
	return h.Environ()
}

// terminalEnv is the agent's environment without what a terminal's output
// must never show: secrets (every Config.Secrets name), which a command like
// env would write into recorded fixtures, and ACPSNAP_*, whose machine
// paths would make replay differ from record.
func terminalEnv(env []string, hidden map[string]string) []string {
	names := make([]string, 0, len(hidden))
	for name := range hidden {
		names = append(names, name)
	}
	return secrets.Scrub(env, nil, names...)
}

// lookupEnv is the value of name in env ("" when unset).
func lookupEnv(env []string, name string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// setEnv sets kv ("NAME=value") in env, in place of an earlier NAME (the
// PATH that agent.env extends through {{path}}).
func setEnv(env []string, kv string) []string {
	name, _, _ := strings.Cut(kv, "=")
	for i, old := range env {
		if strings.HasPrefix(old, name+"=") {
			env[i] = kv
			return env
		}
	}
	return append(env, kv)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// lastLines is the last n lines of s, indented for an error message, each
// made visible: the agent's bytes must not drive the terminal that shows
// the failure (escape sequences could erase the FAIL line).
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	for i, l := range lines {
		lines[i] = console.Line(l)
	}
	return "\t" + strings.Join(lines, "\n\t")
}

// gatedReader blocks every Read until ready is closed.
type gatedReader struct {
	ready <-chan struct{}
	r     io.Reader
}

func (g gatedReader) Read(p []byte) (int, error) {
	<-g.ready
	return g.r.Read(p)
}
