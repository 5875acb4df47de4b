package cli

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// launcherEnv marks the short-lived acpsnap that starts a capture's
// worker, workerEnv the worker (detached).
const (
	launcherEnv = "ACPSNAP_CAPTURE_LAUNCHER"
	workerEnv   = "ACPSNAP_CAPTURE_WORKER"
)

// captureFlags are the flags and argument of capture.
type captureFlags struct {
	dir, agent, name                 string
	offline, force, noWorkspace, exp bool
	grace, timeout                   time.Duration
}

func (e *env) parseCapture(args []string) (*captureFlags, error) {
	f := &captureFlags{}
	fs := e.flags("capture")
	fs.StringVar(&f.dir, "dir", "", dirUsage)
	fs.StringVar(&f.agent, "agent", "", "the agent `command` line (default: the corpus's, else the bundled agent)")
	fs.BoolVar(&f.offline, "offline", false, "run the agent in a loopback-only network namespace and report the lookups it tried")
	fs.BoolVar(&f.force, "force", false, "replace a scenario NAME that exists, and write even when CI is set")
	fs.BoolVar(&f.noWorkspace, "no-workspace", false, "leave the client's folder out of the scenario (no workspace/)")
	fs.BoolVar(&f.exp, "expect-workspace", false, "also write what the agent left in the folder as workspace.expected/")
	fs.DurationVar(&f.grace, "grace", 0, "how long the agent gets to exit at each stage of shutdown (0: 2s)")
	fs.DurationVar(&f.timeout, "timeout", 0, "default wait of a step in the replays that check the scenario (0: 10s)")
	fs.Usage = func() {
		fmt.Fprintln(e.stderr, "usage: acpsnap capture [-dir DIR] [flags] NAME\n\nacpsnap speaks ACP on stdin/stdout: a client starts it where it would start the agent.")
		fs.PrintDefaults()
	}
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() != 1 || !kebab.MatchString(fs.Arg(0)) || len(fs.Arg(0)) > maxNameLen {
		return nil, usagef("capture: want exactly one kebab-case scenario NAME of at most %d bytes (category first, e.g. tool-read), got %q", maxNameLen, fs.Args())
	}
	f.name = fs.Arg(0)
	if err := e.writeRefused("capture", false, f.force); err != nil {
		return nil, err
	}
	var err error
	if f.dir, err = findCorpus(f.dir, false); err != nil {
		return nil, err
	}
	return f, nil
}

// capture runs `acpsnap capture NAME`: acpsnap is the agent to the client
// on its stdin and stdout, relays the session to the corpus's agent and,
// when the client has gone, writes the session as the scenario NAME. Its
// own messages go to stderr: stdout is the client's protocol.
func (e *env) capture(args []string) int {
	// The key may be in this process's environment, in each process of a
	// capture (the one the client started, the launcher, the worker).
	if err := hideEnviron(); err != nil {
		return e.exit(err)
	}
	if os.Getenv(launcherEnv) != "" {
		return startWorker(os.Args)
	}
	f, err := e.parseCapture(args)
	if err != nil {
		return e.exit(err)
	}
	// Writing to a client that has gone fails (EPIPE) instead of killing
	// the process: what was captured is still written. Notify, not Ignore:
	// an ignored signal would stay ignored in the agent.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	worker := os.Getenv(workerEnv) != ""
	os.Unsetenv(workerEnv)
	if worker {
		keepDone()
	}
	if !worker && os.Getenv(offlineEnv) == "" && e.stdin == os.Stdin && canDetach {
		return e.detached(os.Args)
	}
	code := e.captureFlags(f)
	if worker {
		reportExit(code)
	}
	return code
}

// captureFlags runs capture with its parsed flags, in a loopback-only
// network namespace with -offline, whose one way out is the proxy's to
// the live model (sandbox.Config.Dial).
func (e *env) captureFlags(f *captureFlags) int {
	if f.offline {
		return e.offline(os.Args, true, func() int { return e.captureParsed(f) })
	}
	return e.captureParsed(f)
}

// captureParsed runs capture with its parsed flags.
func (e *env) captureParsed(f *captureFlags) int {
	cc, err := e.captureConfig(f)
	if err != nil {
		return e.exit(err)
	}
	ctx, stop := interruptible()
	defer stop()
	o, notes := check.Capture(ctx, filepath.Join(f.dir, f.name), cc)
	for _, n := range notes {
		fmt.Fprintln(e.stderr, "acpsnap: capture: note:", n)
	}
	p := &printer{w: e.stderr, accept: func(check.Outcome) string { return "" }}
	p.outcome(o)
	if o.Status != check.Passed {
		return ExitFailed
	}
	fmt.Fprintf(e.stderr, "acpsnap: capture: replay it with: %s\n", commandFor("run", f.dir, f.agent, "-run", shellQuote("^"+f.name+"$")))
	return ExitOK
}

// captureConfig is the capture's configuration from its flags, the corpus
// and the environment: the live model's key as record reads it.
func (e *env) captureConfig(f *captureFlags) (check.CaptureConfig, error) {
	if st, err := os.Stat(f.dir); err != nil || !st.IsDir() {
		return check.CaptureConfig{}, usagef("corpus folder %s: not a directory", f.dir)
	}
	cwd, err := os.Getwd()
	if err != nil {
		return check.CaptureConfig{}, fmt.Errorf("capture: %w", err)
	}
	if err := check.CaptureRefusal(filepath.Join(f.dir, f.name), cwd, f.force); err != nil {
		return check.CaptureConfig{}, usagef("%v", err)
	}
	corpus, err := scenario.LoadCorpus(f.dir)
	if err != nil {
		return check.CaptureConfig{}, usagef("%v", err)
	}
	if f.offline && (corpus == nil || corpus.Native()) {
		return check.CaptureConfig{}, usagef("capture -offline: a native agent reaches its live model itself, which the namespace refuses; -offline captures an agent whose model acpsnap's proxy reaches (acpsnap.yml's model.dialect)")
	}
	agent, err := e.agentCommand(f.agent, corpus)
	if err != nil {
		return check.CaptureConfig{}, err
	}
	secrets, err := e.recordSecrets(corpus)
	if err != nil {
		return check.CaptureConfig{}, err
	}
	settings := harness.Settings{Agent: agent, Environ: e.scanEnviron(), Secrets: secrets, Grace: f.grace,
		StepTimeout: f.timeout, Acpsnap: acpsnapBinary()}
	cc := check.CaptureConfig{Config: check.Config{Settings: settings, Corpus: corpus},
		Cwd: cwd, Client: e.stdin, ToClient: e.stdout, NoWorkspace: f.noWorkspace, Expected: f.exp, Force: f.force}
	e.offlineSettings(&cc.Config.Settings, true)
	return cc, nil
}
