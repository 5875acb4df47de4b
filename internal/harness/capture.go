package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/acpsnap/acpsnap/internal/harness/client"
	"github.com/acpsnap/acpsnap/internal/harness/harvest"
	"github.com/acpsnap/acpsnap/internal/harness/proc"
	"github.com/acpsnap/acpsnap/internal/harness/script"
	"github.com/acpsnap/acpsnap/internal/httplog"
	"github.com/acpsnap/acpsnap/internal/normalize"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/strictjson"
	"github.com/acpsnap/acpsnap/sessionlog"
)

// CaptureConfig says how to capture one session of a real ACP client with
// the agent (acpsnap capture): the agent runs as Run runs it in Record
// (its private HOME, TMPDIR and sessions folder, its environment, its
// model behind the recording proxy), except that it works in the client's
// folder and the client, not input.json, drives it.
type CaptureConfig struct {
	// Config is the run: the agent, its model (Record: Model.Upstream and
	// Key; a native agent gets Secrets), the corpus's environment and home
	// seed. Scenario is the scenario being written: its manifest (the
	// permission mode, the environment) is read, its input is not; Dir is
	// where it will be. Mode is always Record; Settle, Ready and OnEnd are
	// not used.
	Config
	// Cwd is the client's folder: the agent's working directory and the
	// only one a session may name (required). Its spellings become {{cwd}}.
	Cwd string
	// Client is what the client sends (acpsnap's stdin); ToClient is where
	// it reads (acpsnap's stdout). Both required.
	Client   io.Reader
	ToClient io.Writer
}

// Captured is what a capture saw.
type Captured struct {
	// Result is the run as a Record run returns it: the agent's stdout as
	// relayed (the client's request ids), the logs (composed from the
	// model traffic, or the native agent's), the token context, the pins.
	Result *Result
	// Input is the scenario's input.json; Override its
	// replay.override.json (the cancel points), nil when none.
	Input, Override []byte
	// Notes say what the scenario leaves out of what the client did.
	Notes []string
	// Client is the client's name and version from initialize; Prompt the
	// first prompt's text ("" when none).
	Client, Prompt string
}

// Capture relays one client's session with the agent, live, line by line
// in both directions, until the client disconnects (its stream ends, or
// ctx ends), then ends the agent and returns the session as a scenario's
// files would hold it. Its error says why the session cannot be a
// scenario; the Result is non-nil whenever the agent started (its stderr).
func Capture(ctx context.Context, cc CaptureConfig) (*Captured, error) {
	cfg := cc.Config
	if len(cfg.Agent) == 0 || cc.Cwd == "" || cc.Client == nil || cc.ToClient == nil || cfg.Scenario == nil {
		return nil, errors.New("harness: capture: the agent, the cwd, the client's streams and the scenario are required")
	}
	cfg.Mode = Record
	cfg.Grace = cmp.Or(cfg.Grace, 2*time.Second)
	cfg.StepTimeout = cmp.Or(cfg.StepTimeout, 10*time.Second)
	cwd, err := filepath.Abs(cc.Cwd)
	if err != nil {
		return nil, fmt.Errorf("harness: capture: %w", err)
	}
	rts, err := harvest.Make(nil, cfg.TempDir, "")
	if err != nil {
		return nil, infrastructure(fmt.Errorf("harness: capture: %w", err))
	}
	defer rts.Remove()
	live := *rts
	live.Cwd = cwd // the agent works on the client's files
	r := &run{cfg: cfg, ctx: ctx, in: cfg.Scenario.Input, roots: &live, failed: make(chan struct{})}
	if r.in == nil {
		r.in = &scenario.Input{}
	}
	return r.capture(cc)
}

// capture starts the model and the agent, relays, ends the agent and
// writes the script.
func (r *run) capture(cc CaptureConfig) (*Captured, error) {
	model, err := r.startModel(r.ctx)
	if err != nil {
		return nil, err
	}
	var calls func() int
	if model != nil {
		r.model, calls = model, model.Calls
		defer model.Close()
	}
	rec := script.New(r.roots.Cwd, normalize.Aliases(r.roots.Cwd), calls)
	out := &clientWire{w: cc.ToClient, gone: make(chan struct{})}
	start := time.Now()
	if err := r.startRelay(rec, out); err != nil {
		return nil, err
	}
	errs := r.relay(cc.Client, out, rec)
	rec.Disconnected()
	res, errs := r.ended(rec, start, errs)
	c := &Captured{Result: res, Client: rec.ClientInfo()}
	if len(errs) > 0 {
		return c, captureError(errs, res)
	}
	var exchanges []httplog.Exchange
	if model != nil && len(res.Logs) > 0 {
		if _, exchanges, err = httplog.Decompose(res.Logs[0].Raw, scenario.SessionFile, r.cfg.Model.Pins); err != nil {
			return c, fmt.Errorf("harness: capture: %w", err)
		}
	}
	s, err := rec.Script(exchanges)
	if err != nil {
		return c, fmt.Errorf("harness: capture: this session cannot be a scenario: %w", err)
	}
	c.Input, c.Override, c.Notes, c.Prompt = s.Input, s.Override, s.Notes, s.Prompt
	return c, nil
}

// startRelay starts the agent with every stdout line shown to the
// recorder, then sent to the client.
func (r *run) startRelay(rec *script.Recorder, out *clientWire) error {
	argv, env, err := r.command(r.cfg.Scenario.Manifest, r.model)
	if err != nil {
		return err
	}
	r.terms = client.NewTerminals(terminalEnv(env, r.cfg.Secrets), r.cfg.Grace, r.cfg.OwnUserNS)
	a, err := proc.StartRelay(argv, r.roots.Cwd, env, r.cfg.Grace, r.cfg.OwnUserNS, r.fail, func(line []byte) {
		rec.Agent(line) // before the client can answer it
		out.send(line)
	})
	if err != nil {
		return infrastructure(fmt.Errorf("start agent %q: %w", r.cfg.Agent[0], err))
	}
	r.agent = a
	return nil
}

// ended shuts the agent down once the client has gone and harvests the
// run: its stdout and stderr, and its logs (composed from the model
// traffic, with the sessions numbered first as a run numbers them when
// session/new answers, or the native agent's own).
func (r *run) ended(rec *script.Recorder, start time.Time, errs []error) (*Result, []error) {
	ended := r.end(len(errs) > 0)
	res := &Result{Cwd: r.roots.Cwd, CwdAliases: normalize.Aliases(r.roots.Cwd), Home: r.roots.Home, HomeAliases: normalize.Aliases(r.roots.Home),
		Root: r.roots.Base, RootAliases: normalize.Aliases(r.roots.Base), Started: start, Shutdown: r.shutdown}
	if err := r.failure(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, ended...)
	res.Stdout, res.Stderr = r.stdout, r.stderr.String()
	r.sessions = rec.Sessions()
	name, version := rec.AgentInfo()
	r.agentInfo = sessionlog.AgentInfo{Name: name, Version: version}
	if r.model != nil {
		for _, id := range r.sessions {
			r.model.Identify(id)
		}
	}
	errs = append(errs, r.collect(res)...)
	res.Duration = time.Since(start)
	return res, errs
}

// relay passes the client's lines to the agent until the client's stream
// ends, the client stops reading, ctx ends, or the agent exits (an error:
// the client's session ended without the client).
func (r *run) relay(from io.Reader, out *clientWire, rec *script.Recorder) []error {
	done := make(chan error, 1)
	go func() {
		s := strictjson.NewScanner(from)
		for s.Scan() {
			if answer := rec.Client(s.Bytes()); answer != nil {
				out.send(answer)
				continue
			}
			if _, err := r.agent.Stdin().Write(append(s.Bytes(), '\n')); err != nil {
				break // the agent is gone; its exit says why
			}
		}
		done <- s.Err()
	}()
	select {
	case err := <-done:
		if err != nil {
			return []error{fmt.Errorf("reading the client: %w", err)}
		}
	case <-out.gone:
	case <-r.ctx.Done():
	case <-r.agent.Exited():
		return []error{fmt.Errorf("the agent exited (%s) while the client was still connected", r.agent.ExitState())}
	}
	return nil
}

// captureError is the error of a capture: its causes and the agent's
// stderr tail.
func captureError(errs []error, res *Result) error {
	msg := fmt.Sprintf("harness: capture: %v", errors.Join(errs...))
	if res != nil && strings.TrimSpace(res.Stderr) != "" {
		msg += "\nagent stderr (last lines):\n" + lastLines(res.Stderr, 20)
	}
	return &runError{msg: msg, errs: errs}
}

// clientWire is acpsnap's stdout towards the client: each line written
// whole, in one Write, as soon as it is there (no buffer the client could
// notice). A failed write means the client has gone.
type clientWire struct {
	mu     sync.Mutex
	w      io.Writer
	buf    []byte
	failed bool
	gone   chan struct{}
}

func (c *clientWire) send(line []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failed {
		return
	}
	c.buf = append(append(c.buf[:0], line...), '\n')
	if _, err := c.w.Write(c.buf); err != nil {
		c.failed = true
		close(c.gone)
	}
}
