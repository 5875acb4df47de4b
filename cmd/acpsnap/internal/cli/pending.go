package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/frontend"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/scenario"
	"github.com/acpsnap/acpsnap/internal/treediff"
)

// workflowFlags are the review-workflow flags of run, update and refresh.
type workflowFlags struct {
	pending, verbose bool
}

func (w *workflowFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&w.pending, "pending", false, "write <file>.new beside each differing fixture for 'acpsnap review' (never the fixture itself)")
	fs.BoolVar(&w.verbose, "v", false, "list the slowest scenarios at the end")
}

// colour reports whether diffs written to w get ANSI colour: w is a
// terminal and NO_COLOR is unset (https://no-color.org).
func (e *env) colour(w io.Writer) bool {
	return isTerminalWriter(w) && e.getenv("NO_COLOR") == ""
}

// width is how many columns the terminal w has: $COLUMNS, else what the
// terminal says; 0 when w is not a terminal (the caller's default).
func (e *env) width(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !console.IsTerminal(f) {
		return 0
	}
	if n, err := strconv.Atoi(e.getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return console.Width(f)
}

// isTerminalWriter reports whether w is a terminal that can redraw a line.
func isTerminalWriter(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && console.IsTerminal(f)
}

// workflow applies the workflow flags and what the environment says to a
// corpus run: diff colour, pending files (refused under CI), obsolete
// fixtures failing under CI.
func (e *env) workflow(cmd string, f *runFlags, rc *check.RunConfig) error {
	rc.CI = frontend.CI(e.getenv("CI"))
	if f.pending {
		if err := e.writeRefused(cmd+" -pending", true, f.force); err != nil {
			return err
		}
	}
	if f.pending && cmd == "record" {
		return usagef("record -pending: not supported (record spends live model calls; use refresh -pending)")
	}
	rc.Pending = f.pending
	rc.DiffColor, rc.DiffWidth = e.colour(e.stdout), e.width(e.stdout)
	return nil
}

// reporter wires the progress line between the corpus run and the
// printer: on a terminal a live count line with only the scenarios that
// need attention printed above it; elsewhere the per-scenario lines. The
// count follows scenarios as they finish; the lines come in name order.
func (e *env) reporter(f *runFlags, rc *check.RunConfig, p *printer, names []string) (*console.Tracker, *ordered) {
	term := !f.json && isTerminalWriter(e.stdout) && e.getenv("TERM") != "dumb"
	tr := console.NewProgress(console.ProgressConfig{Out: e.stdout, Terminal: term, Total: len(names)})
	p.w = trackerWriter{tr}
	lines := inNameOrder(names, func(o check.Outcome) {
		if term && o.Status == check.Passed && len(o.Wrote) == 0 {
			return
		}
		p.outcome(o)
		if !f.json {
			tr.Print(workflowLines(o, f.dir))
		}
	})
	rc.OnBegin = tr.Start
	rc.OnDone = func(o check.Outcome) {
		tr.Done(o.Name, progressOutcome(o.Status), o.Duration)
		lines.done(o)
	}
	return tr, lines
}

// finish ends the live line and, with -v, lists the slowest scenarios.
func (e *env) finish(f *runFlags, tr *console.Tracker) {
	tr.Finish()
	if f.verbose && !f.json {
		fmt.Fprint(e.stdout, console.Slowest(tr.Results(), 5))
	}
}

// workflowLines are the pending and obsolete files of an outcome of the
// corpus at dir.
func workflowLines(o check.Outcome, dir string) string {
	var sb strings.Builder
	if len(o.Pending) > 0 {
		fmt.Fprintf(&sb, "  pending: %s (review with: %s)\n", console.Line(strings.Join(o.Pending, ", ")), commandFor("review", dir, ""))
	}
	if len(o.Obsolete) > 0 {
		what := "obsolete (no longer produced)"
		if o.Status == check.Passed {
			what = "removed obsolete"
		}
		fmt.Fprintf(&sb, "  %s: %s\n", what, console.Line(strings.Join(o.Obsolete, ", ")))
	}
	return sb.String()
}

func progressOutcome(s check.Status) console.Outcome {
	switch s {
	case check.Passed:
		return console.Passed
	case check.Skipped:
		return console.Skipped
	}
	return console.Failed
}

// trackerWriter writes through a Tracker, above its live line.
type trackerWriter struct{ tr *console.Tracker }

func (w trackerWriter) Write(b []byte) (int, error) {
	w.tr.Print(string(b))
	return len(b), nil
}

// pendingFlags parses the flags of accept, reject and review, which
// write to the corpus: with CI set they refuse unless -force.
func (e *env) pendingFlags(cmd string, args []string) (dir string, re *regexp.Regexp, err error) {
	fs := e.flags(cmd)
	fs.StringVar(&dir, "dir", "", "the corpus `folder` (default: every scenario below the current folder)")
	run := fs.String("run", "", "only scenarios whose name matches this `regexp`")
	force := fs.Bool("force", false, "write even when CI is set")
	if err := parse(fs, args); err != nil {
		return "", nil, err
	}
	if fs.NArg() > 0 {
		return "", nil, usagef("%s: unexpected arguments %q", cmd, fs.Args())
	}
	if err := e.writeRefused(cmd, false, *force); err != nil {
		return "", nil, err
	}
	if *run != "" {
		if re, err = regexp.Compile(*run); err != nil {
			return "", nil, usagef("-run: %v", err)
		}
	}
	return dir, re, nil
}

// pendingFiles lists the pending files of the scenarios re selects: of
// the corpus at dir, or ("") of every scenario below the current folder.
func pendingFiles(dir string, re *regexp.Regexp) ([]string, error) {
	var dirs []string
	if dir == "" {
		dirs = frontend.ScenariosBelow(".")
	} else {
		names, err := scenario.Names(dir)
		if err != nil {
			return nil, usagef("%v", err)
		}
		for _, n := range names {
			dirs = append(dirs, filepath.Join(dir, n))
		}
	}
	var out []string
	for _, d := range dirs {
		if re == nil || re.MatchString(filepath.Base(d)) {
			out = append(out, scenario.Pending(d)...)
		}
	}
	return out, nil
}

// checkPending refuses a pending path that is not a regular file or a
// folder of regular files: a planted link would install a link to
// anywhere as a fixture.
func checkPending(p string) error {
	st, err := os.Lstat(p)
	if err != nil {
		return fmt.Errorf("accept %s: %w", p, err)
	}
	if !st.IsDir() && !st.Mode().IsRegular() {
		return fmt.Errorf("accept %s: not a regular file or folder (%s): refusing to install it (remove it with acpsnap reject)", p, st.Mode().Type())
	}
	if st.IsDir() {
		if err := treediff.Check(p, treediff.Config{}); err != nil {
			return fmt.Errorf("accept %s: %w: refusing to install it (remove it with acpsnap reject)", p, err)
		}
	}
	return nil
}

// installer accepts pending files scenario by scenario through
// check.Accept: each scenario's accepted files are replayed in a staged
// copy with its corpus's agent and installed only if that replay passes.
type installer struct {
	e       *env
	ctx     context.Context
	p       *printer
	refused int // scenarios whose accept did not replay
}

func (e *env) installer(ctx context.Context) *installer {
	return &installer{e: e, ctx: ctx, p: &printer{w: e.stdout, accept: func(check.Outcome) string { return "" }}}
}

// install accepts the pending files of the scenario folder dir. A refusal
// is printed with its diff and counted; only an error that stops the
// command is returned.
func (in *installer) install(dir string, files []string) (bool, error) {
	for _, p := range files {
		if err := checkPending(p); err != nil {
			return false, err
		}
	}
	corpus, err := scenario.LoadCorpus(filepath.Dir(dir))
	if err != nil {
		return false, usagef("%v", err)
	}
	agent, err := in.e.agentCommand("", corpus)
	if err != nil {
		return false, err
	}
	cfg := check.Config{Settings: harness.Settings{Agent: agent, Environ: in.e.scanEnviron(), Acpsnap: acpsnapBinary()}, Corpus: corpus, DiffColor: in.e.colour(in.e.stdout)}
	o := check.Accept(in.ctx, dir, files, cfg)
	if o.Status != check.Passed {
		in.refused++
		in.p.outcome(o)
		fmt.Fprintf(in.e.stdout, "  not accepted: %s (left pending; re-run with -pending, or remove with acpsnap reject)\n", console.Line(strings.Join(files, ", ")))
		return false, nil
	}
	return true, nil
}

// err is the command's outcome once every scenario is done: exit 1 when
// any accept was refused.
func (in *installer) err() error {
	if in.refused > 0 {
		return failedf("%d scenario(s) not accepted: what they would install does not replay", in.refused)
	}
	return nil
}

// byScenario groups pending paths (listed by scenario) by their folder.
func byScenario(files []string) [][]string {
	var groups [][]string
	for i, p := range files {
		if i == 0 || filepath.Dir(p) != filepath.Dir(files[i-1]) {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], p)
	}
	return groups
}

// rejectPending removes a pending file (or folder).
func rejectPending(p string) error {
	if err := os.RemoveAll(p); err != nil {
		return fmt.Errorf("reject %s: %w", p, err)
	}
	return nil
}

// settle implements accept and reject: act on every pending file selected.
func (e *env) settle(cmd string, args []string) error {
	dir, re, err := e.pendingFlags(cmd, args)
	if err != nil {
		return err
	}
	files, err := pendingFiles(dir, re)
	if err != nil {
		return err
	}
	if cmd == "reject" {
		for _, p := range files {
			if err := rejectPending(p); err != nil {
				return err
			}
			fmt.Fprintf(e.stdout, "rejected %s\n", console.Line(p))
		}
		fmt.Fprintf(e.stdout, "rejected %d pending file(s)\n", len(files))
		return nil
	}
	ctx, stop := interruptible()
	defer stop()
	in, n := e.installer(ctx), 0
	for _, group := range byScenario(files) {
		ok, err := in.install(filepath.Dir(group[0]), group)
		if err != nil {
			return err
		}
		if ok {
			for _, p := range group {
				fmt.Fprintf(e.stdout, "accepted %s\n", console.Line(p))
			}
			n += len(group)
		}
	}
	fmt.Fprintf(e.stdout, "accepted %d pending file(s)\n", n)
	return in.err()
}

// failedError is a command that ran and failed (exit 1), like a failed
// scenario: not a usage error, not an internal one.
type failedError struct{ msg string }

func (e *failedError) Error() string { return e.msg }

func failedf(format string, args ...any) error {
	return &failedError{fmt.Sprintf(format, args...)}
}
