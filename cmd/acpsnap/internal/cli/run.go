package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/acpsnap/acpsnap/agent/launch"
	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/frontend"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/report"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/secrets"
	"github.com/acpsnap/acpsnap/internal/strictjson"
)

// runFlags are the flags of run, update, refresh and record.
type runFlags struct {
	dir, run, skip, shard, agent, junit string
	html                                string
	parallel                            int
	json, force, keep, offline          bool
	missing, drifted                    bool // record -missing, -drifted
	timeout, grace                      time.Duration
	bazel                               frontend.Bazel // Bazel's test protocol: its shard, XML_OUTPUT_FILE
	started                             time.Time      // when the run began: the report's timestamp
	workflowFlags
}

func (e *env) parseRun(cmd string, args []string) (*runFlags, error) {
	f := &runFlags{started: time.Now()}
	fs := e.flags(cmd)
	fs.StringVar(&f.dir, "dir", "", dirUsage)
	fs.StringVar(&f.run, "run", "", "only scenarios whose name matches this `regexp`")
	fs.StringVar(&f.skip, "skip", "", "leave out scenarios whose name matches this `regexp` (as go test -skip)")
	fs.IntVar(&f.parallel, "parallel", runtime.NumCPU(), "scenarios run at once (record: always 1)")
	fs.StringVar(&f.shard, "shard", "", "run shard `K/N` of a stable split by name (default: Bazel's TEST_SHARD_INDEX+1 of TEST_TOTAL_SHARDS)")
	fs.StringVar(&f.agent, "agent", "", "the agent `command` line (default: the bundled agent, this binary's 'agent')")
	fs.BoolVar(&f.json, "json", false, "print one JSON object per scenario, then a summary object")
	fs.StringVar(&f.junit, "junit", "", "also write a JUnit XML report to `file` (default: Bazel's XML_OUTPUT_FILE)")
	fs.StringVar(&f.html, "html", "", "also write a self-contained HTML report (transcripts, diffs) to `file`")
	fs.BoolVar(&f.force, "force", false, "write fixtures even when CI is set")
	fs.DurationVar(&f.timeout, "timeout", 0, fmt.Sprintf("default wait of a step (0: acpsnap.yml's agent.timeout, else %s)", harness.DefaultStepTimeout))
	fs.DurationVar(&f.grace, "grace", 0, fmt.Sprintf("how long the agent gets to exit at each stage of shutdown (0: acpsnap.yml's agent.grace, else %s)", harness.DefaultGrace))
	fs.BoolVar(&f.keep, "keep", false, "keep the private folders of a failed scenario and print where they are")
	fs.BoolVar(&f.offline, "offline", false, "run in a loopback-only network namespace and report the lookups tried")
	f.workflowFlags.register(fs)
	if cmd == "record" {
		registerRecordSets(fs, f)
	}
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if f.missing && f.drifted {
		return nil, usagef("record: -missing and -drifted: choose one")
	}
	if fs.NArg() > 0 {
		return nil, usagef("%s: unexpected arguments %q", cmd, fs.Args())
	}
	if f.parallel < 1 {
		return nil, usagef("%s: -parallel %d: want at least 1", cmd, f.parallel)
	}
	var err error
	if f.bazel, err = frontend.ReadBazel(e.getenv); err != nil {
		return nil, usagef("%s: %v", cmd, err)
	}
	if f.junit == "" {
		f.junit = f.bazel.XMLOutput
	}
	if f.dir, err = findCorpus(f.dir, false); err != nil {
		return nil, err
	}
	return f, nil
}

// run implements run, update, refresh and record.
func (e *env) run(cmd string, args []string) int {
	f, err := e.parseRun(cmd, args)
	if err != nil {
		return e.exit(err)
	}
	if f.offline {
		return e.offline(os.Args, cmd == "record", func() int { return e.runParsed(cmd, f) })
	}
	return e.runParsed(cmd, f)
}

// runParsed runs run, update, refresh or record with its parsed flags.
func (e *env) runParsed(cmd string, f *runFlags) int {
	rc, err := e.runConfig(cmd, f)
	if err == nil && rc.Mode == check.Record {
		err = hideEnviron() // the key is in acpsnap's environment
	}
	if err == nil {
		err = e.workflow(cmd, f, rc)
	}
	if err == nil && f.shard == "" {
		err = f.bazel.Touch() // the run shards as Bazel asks
	}
	var vs []check.Violation
	if err == nil {
		vs, err = e.preflight(f, rc)
	}
	if err == nil && len(vs) > 0 {
		err = e.guardsFailed(f, rc, vs)
	}
	if err != nil {
		return e.exit(err)
	}
	ctx, stop := interruptible()
	defer stop()
	if nothing, err := e.recordPlan(ctx, f, rc); err != nil || nothing {
		return e.exit(err)
	}
	p := &printer{w: e.stdout, json: f.json, accept: func(o check.Outcome) string { return acceptCommand(o, f) }}
	names, err := rc.Selected()
	if err != nil {
		return e.exit(err)
	}
	tr, progress := e.reporter(f, rc, p, names)
	outs, err := check.Run(ctx, *rc)
	if err != nil {
		return e.exit(err)
	}
	progress.flush(outs)
	e.finish(f, tr)
	p.changeSummary(e.stdout, f)
	code := e.summarize(outs, f.json)
	if !f.json && slices.ContainsFunc(outs, func(o check.Outcome) bool { return len(o.Pending) > 0 }) {
		if hint := report.IgnoreHint(f.dir); hint != "" {
			fmt.Fprintln(e.stdout, hint)
		}
	}
	leaks := secrets.New(rc.Secrets, rc.Environ) // what the reports hold passes the scan too
	if f.junit != "" {
		cases := outs
		if filtered(rc) == nil { // the whole corpus's guards were checked, and passed
			cases = append([]check.Outcome{report.GuardsOutcome(report.GuardsName, nil)}, outs...)
		}
		if err := writeJUnit(f, cases, p.accept, leaks.Check); err != nil {
			return e.exit(err)
		}
	}
	if f.html != "" {
		r := report.NewPage(f.dir, outs, p.accept)
		r.Corpus = report.CorpusName(f.dir, "", f.bazel.Runfiles)
		if err := report.WriteFile(f.html, r, leaks.Check); err != nil {
			return e.exit(err)
		}
	}
	if ctx.Err() != nil {
		return e.exit(fmt.Errorf("interrupted: scenarios not run are counted as skipped"))
	}
	return code
}

// interruptible is a context cancelled by SIGINT, SIGTERM or SIGHUP, so an
// interrupted run (a CI timeout, timeout(1), Ctrl-C) still shuts its agents
// down and removes its temporary roots.
func interruptible() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
}

// filtered is the selection of a -run, a -skip or a shard after the
// first: a run that names its scenarios checks the guards of their
// folders only, as a filtered go test does, so that running one scenario
// of a large corpus does not read all of it, and the shards of a corpus
// check its guards once (in shard 1, as under go test); nil (every
// folder, and the corpus root's links) for a whole run or its first
// shard.
func filtered(rc *check.RunConfig) func(string) bool {
	sel := rc.Selection
	if sel.Run == nil && sel.Skip == nil && sel.Shard <= 1 {
		return nil
	}
	return sel.Match
}

// preflight refuses a run that cannot be meaningful before any agent
// starts: a -run that selects nothing, a -junit file whose folder does not
// exist; and returns the guard violations of the corpus (those of the
// selected folders: filtered), which keep every agent from starting. A
// scenario still being written (not recorded yet, or with the scaffold's
// TODO reason) is no violation here: it never stops a run of the others
// (an unrecorded one is its own outcome, check.Unrecorded; acpsnap verify
// refuses both).
func (e *env) preflight(f *runFlags, rc *check.RunConfig) ([]check.Violation, error) {
	if re := rc.Selection.Run; re != nil {
		if !slices.ContainsFunc(rc.Folders.Names, re.MatchString) {
			return nil, usagef("-run %q matches no scenario in %s", f.run, f.dir)
		}
	}
	for flag, file := range map[string]string{"-junit": f.junit, "-html": f.html} {
		if st, err := os.Stat(filepath.Dir(file)); file != "" && (err != nil || !st.IsDir()) {
			return nil, usagef("%s %s: folder %s does not exist", flag, file, filepath.Dir(file))
		}
	}
	vc := check.VerifyConfig{Unrecorded: func(string) bool { return true }, Drafts: true, Pending: rc.Pending, DiffColor: rc.DiffColor, Folders: rc.Folders, Only: filtered(rc)}
	if rc.Mode.Writes() {
		vc.Rewritten = rc.Selection.Match
	}
	return check.Verify(f.dir, vc), nil
}

// summarize prints the closing line (and with -json the summary object)
// and returns the exit code the outcomes call for.
func (e *env) summarize(outs []check.Outcome, asJSON bool) int {
	passed, failed, skipped := check.Count(outs)
	summary := fmt.Sprintf("%d passed, %d failed", passed, failed)
	if skipped > 0 {
		summary += fmt.Sprintf(", %d skipped", skipped)
	}
	if asJSON {
		b, _ := strictjson.Marshal(map[string]int{"passed": passed, "failed": failed, "skipped": skipped})
		e.stdout.Write(b)
		fmt.Fprintln(e.stderr, summary)
	} else {
		fmt.Fprintln(e.stdout, summary)
	}
	for _, o := range outs {
		if errors.Is(o.Err, harness.ErrInfrastructure) {
			fmt.Fprintf(e.stderr, "acpsnap: %s: %v\n", console.Line(o.Name), o.Err)
			return ExitInternal
		}
	}
	for _, o := range outs {
		if errors.Is(o.Err, harness.ErrInvalidScenario) {
			return ExitUsage // a fixture error, already printed with its scenario
		}
	}
	if failed > 0 {
		return ExitFailed
	}
	return ExitOK
}

// runConfig turns flags and environment into a corpus run.
func (e *env) runConfig(cmd string, f *runFlags) (*check.RunConfig, error) {
	mode := check.Mode(cmd)
	if cmd == "run" {
		mode = check.Replay
	}
	if mode.Writes() {
		if err := e.writeRefused(cmd, false, f.force); err != nil {
			return nil, err
		}
	}
	if st, err := os.Stat(f.dir); err != nil || !st.IsDir() {
		return nil, usagef("corpus folder %s: not a directory", f.dir)
	}
	rc := &check.RunConfig{Root: f.dir, Parallel: f.parallel}
	rc.Mode, rc.Environ, rc.StepTimeout = mode, e.scanEnviron(), f.timeout
	rc.Grace, rc.Keep = f.grace, f.keep
	rc.ScriptedSecrets = launch.ScriptedEnv
	for _, re := range []struct {
		flag, value string
		to          **regexp.Regexp
	}{{"-run", f.run, &rc.Selection.Run}, {"-skip", f.skip, &rc.Selection.Skip}} {
		if re.value == "" {
			continue
		}
		var err error
		if *re.to, err = regexp.Compile(re.value); err != nil {
			return nil, usagef("%s: %v", re.flag, err)
		}
	}
	rc.Selection.Shard, rc.Selection.Shards = f.bazel.Shard, f.bazel.Shards
	if f.shard != "" {
		k, n, err := check.ParseShard(f.shard)
		if err != nil {
			return nil, usagef("-shard: %v", err)
		}
		rc.Selection.Shard, rc.Selection.Shards = k, n
	}
	folders, err := check.ReadFolders(f.dir, filtered(rc)) // once, for the guards and the run
	if err != nil {
		return nil, usagef("%v", err)
	}
	corpus := folders.Corpus
	rc.Corpus, rc.Folders = corpus, folders
	agent, err := e.agentCommand(f.agent, corpus)
	if err != nil {
		return nil, err
	}
	rc.Agent, rc.Acpsnap = agent, acpsnapBinary()
	if mode == check.Record {
		if f.offline && corpus.Native() {
			return nil, usagef("record -offline: a native agent reaches its live model itself, which the namespace refuses; -offline records an agent whose model acpsnap's proxy reaches (acpsnap.yml's model.dialect)")
		}
		if rc.Secrets, err = e.recordSecrets(corpus); err != nil {
			return nil, err
		}
	}
	e.offlineSettings(&rc.Settings, mode == check.Record)
	return rc, nil
}

// agentCommand is -agent split into words, else the corpus's agent
// command, else this binary's agent command.
func (e *env) agentCommand(flagValue string, corpus *scenario.Corpus) ([]string, error) {
	if flagValue != "" {
		words, err := splitCommand(flagValue)
		if err != nil {
			return nil, usagef("-agent: %v", err)
		}
		return words, nil
	}
	if corpus != nil && len(corpus.Agent.Command) > 0 {
		return corpus.Agent.Command, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locate the bundled agent: %w", err)
	}
	return []string{exe, "agent"}, nil
}

// acceptCommand is the exact command line that accepts o's change (or
// records it, for a scenario not recorded yet).
func acceptCommand(o check.Outcome, f *runFlags) string {
	if o.Status == check.Unrecorded && o.Accept == "" {
		return commandFor("new", f.dir, f.agent, "-model", "FILE", o.Name) // authored, without its model
	}
	if o.Accept == "" {
		return ""
	}
	return commandFor(string(o.Accept), f.dir, f.agent, "-run", shellQuote("^"+regexp.QuoteMeta(o.Name)+"$"))
}

// commandFor is "acpsnap CMD [-dir DIR] [-agent AGENT] ARGS…", acpsnap
// spelled as the user ran it (invocation: go tool acpsnap, go run
// ./cmd/acpsnap), with -dir unless the command finds DIR without it
// (./snapshots, the current folder) and -agent when it is given.
func commandFor(cmd, dir, agent string, args ...string) string {
	parts := []string{invocation(), cmd}
	if dir = filepath.Clean(dir); dir != frontend.DefaultCorpus && dir != "." {
		parts = append(parts, "-dir", shellQuote(dir))
	}
	if agent != "" {
		parts = append(parts, "-agent", shellQuote(agent))
	}
	return strings.Join(append(parts, args...), " ")
}

func shellQuote(s string) string { return frontend.Quote(s) }
