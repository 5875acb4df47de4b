package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"runtime"
	"strings"
	"time"

	"github.com/acpsnap/acpsnap/internal/jsonl"
	"github.com/acpsnap/acpsnap/snapshots"
)

// runFlags are the flags of run, update, refresh and record.
type runFlags struct {
	dir, run, shard, agent, junit string
	parallel                      int
	json, force                   bool
	timeout                       time.Duration
}

func (e *env) parseRun(cmd string, args []string) (*runFlags, error) {
	f := &runFlags{}
	fs := e.flags(cmd)
	fs.StringVar(&f.dir, "dir", "snapshots", "the corpus `folder`")
	fs.StringVar(&f.run, "run", "", "only scenarios whose name matches this `regexp`")
	fs.IntVar(&f.parallel, "parallel", runtime.NumCPU(), "scenarios run at once (record: always 1)")
	fs.StringVar(&f.shard, "shard", "", "run shard `K/N` of a stable split by name")
	fs.StringVar(&f.agent, "agent", "", "the agent `command` line (default: the bundled agent, this binary's 'agent')")
	fs.BoolVar(&f.json, "json", false, "print one JSON object per scenario, then a summary object")
	fs.StringVar(&f.junit, "junit", "", "also write a JUnit XML report to `file`")
	fs.BoolVar(&f.force, "force", false, "write fixtures even when CI is set")
	fs.DurationVar(&f.timeout, "timeout", 0, "default wait of a step (0: 10s)")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, usagef("%s: unexpected arguments %q", cmd, fs.Args())
	}
	return f, nil
}

// run implements run, update, refresh and record.
func (e *env) run(cmd string, args []string) int {
	f, err := e.parseRun(cmd, args)
	if err != nil {
		return e.exit(err)
	}
	rc, err := e.runConfig(cmd, f)
	if err != nil {
		return e.exit(err)
	}
	if vs := snapshots.Verify(f.dir, snapshots.VerifyConfig{Unrecorded: e.unrecorded(rc)}); len(vs) > 0 {
		for _, v := range vs {
			fmt.Fprintln(e.stderr, v)
		}
		return e.exit(usagef("%d guard violation(s) in %s; fix them (or run 'acpsnap verify -dir %s')", len(vs), f.dir, f.dir))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	p := &printer{w: e.stdout, json: f.json, accept: func(o snapshots.Outcome) string { return acceptCommand(o, f) }}
	rc.OnDone = p.outcome
	outs, err := snapshots.Run(ctx, *rc)
	if err != nil {
		return e.exit(err)
	}
	passed, failed, skipped := snapshots.Count(outs)
	if f.junit != "" {
		if err := writeJUnit(f.junit, outs); err != nil {
			return e.exit(err)
		}
	}
	summary := fmt.Sprintf("%d passed, %d failed", passed, failed)
	if skipped > 0 {
		summary += fmt.Sprintf(", %d skipped", skipped)
	}
	if f.json {
		b, _ := jsonl.Marshal(map[string]int{"passed": passed, "failed": failed, "skipped": skipped})
		e.stdout.Write(b)
		fmt.Fprintln(e.stderr, summary)
	} else {
		fmt.Fprintln(e.stdout, summary)
	}
	if failed > 0 {
		return ExitFailed
	}
	return ExitOK
}

// runConfig turns flags and environment into a corpus run.
func (e *env) runConfig(cmd string, f *runFlags) (*snapshots.RunConfig, error) {
	mode := snapshots.Mode(cmd)
	if cmd == "run" {
		mode = snapshots.Replay
	}
	if mode.Writes() && e.getenv("CI") != "" && !f.force {
		return nil, usagef("%s writes fixtures and CI is set: refusing (pass -force to write anyway)", cmd)
	}
	if st, err := os.Stat(f.dir); err != nil || !st.IsDir() {
		return nil, usagef("corpus folder %s: not a directory", f.dir)
	}
	rc := &snapshots.RunConfig{Root: f.dir, Parallel: f.parallel}
	rc.Mode, rc.Environ, rc.StepTimeout = mode, e.environ, f.timeout
	if f.run != "" {
		re, err := regexp.Compile(f.run)
		if err != nil {
			return nil, usagef("-run: %v", err)
		}
		rc.Selection.Run = re
	}
	if f.shard != "" {
		k, n, err := snapshots.ParseShard(f.shard)
		if err != nil {
			return nil, usagef("-shard: %v", err)
		}
		rc.Selection.Shard, rc.Selection.Shards = k, n
	}
	agent, err := e.agentCommand(f.agent)
	if err != nil {
		return nil, err
	}
	rc.Agent = agent
	if mode == snapshots.Record {
		if rc.Secrets, err = e.liveSecrets(); err != nil {
			return nil, err
		}
	}
	return rc, nil
}

// unrecorded lets record mode create the fixtures of selected scenarios.
func (e *env) unrecorded(rc *snapshots.RunConfig) func(string) bool {
	if rc.Mode != snapshots.Record {
		return nil
	}
	return rc.Selection.Match
}

// agentCommand is -agent split into words, or this binary's agent command.
func (e *env) agentCommand(flagValue string) ([]string, error) {
	if flagValue != "" {
		words, err := splitCommand(flagValue)
		if err != nil {
			return nil, usagef("-agent: %v", err)
		}
		return words, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("locate the bundled agent: %w", err)
	}
	return []string{exe, "agent"}, nil
}

// acceptCommand is the exact command line that accepts o's change.
func acceptCommand(o snapshots.Outcome, f *runFlags) string {
	if o.Accept == "" {
		return ""
	}
	parts := []string{"acpsnap", string(o.Accept)}
	if f.dir != "snapshots" {
		parts = append(parts, "-dir", shellQuote(f.dir))
	}
	if f.agent != "" {
		parts = append(parts, "-agent", shellQuote(f.agent))
	}
	parts = append(parts, "-run", shellQuote("^"+regexp.QuoteMeta(o.Name)+"$"))
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '-' || r == '_' || r == '/' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
