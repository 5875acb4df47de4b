package acpsnaptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/acpsnap/acpsnap/internal/frontend"
	"github.com/acpsnap/acpsnap/internal/report"

	"github.com/acpsnap/acpsnap/internal/check"
	"github.com/acpsnap/acpsnap/internal/console"
	"github.com/acpsnap/acpsnap/internal/harness"
	"github.com/acpsnap/acpsnap/internal/safefile"
	"github.com/acpsnap/acpsnap/internal/scenario"
)

// Params configures Run. The zero value checks the corpus found as the
// acpsnap command finds it.
type Params struct {
	// Dir is the corpus folder, relative to the test's package folder.
	// "": the package folder if it is a corpus, else its snapshots/, else
	// the only corpus below it, as the acpsnap command finds one without
	// -dir.
	Dir string
	// Agent is the agent's command line; nil: agent.command of the
	// corpus's acpsnap.yml. In either, {{corpus}} is the corpus folder's
	// absolute path (the agent starts in a private folder of its own).
	Agent []string
	// RecordSecrets returns the variables the agent gets in record mode
	// only (its live model's URL and key). nil: for an agent that talks
	// to its model over HTTP (acpsnap.yml's model.dialect), the live
	// model's base URL and key from the environment (model.upstream, else
	// the dialect's: OPENAI_BASE_URL and OPENAI_API_KEY, … — check.Upstream);
	// for a native agent, none.
	RecordSecrets func() (map[string]string, error)
	// ScriptedEnv returns the variables that point a native agent at an
	// OpenAI-compatible model server at url. With it, -acpsnap.refresh
	// re-renders the authored scenarios that keep a model.json (an HTTP
	// agent's always are: the scripted server is the proxy's upstream);
	// nil: refresh replays the committed logs of a native corpus.
	ScriptedEnv func(url string) map[string]string
	// SkipUnrecorded reports a scenario that is scaffolded but not
	// recorded yet as skipped; false: as failed.
	SkipUnrecorded bool
	// Timeout is the default wait of a step; 0: acpsnap.yml's
	// agent.timeout, else harness.DefaultStepTimeout.
	Timeout time.Duration
	// Scrub are extra scrub rules, after acpsnap.yml's (docs/format.md,
	// "scrub"): every match of Pattern in stdout and the session logs, on
	// both sides, becomes Replace ($1 … allowed). nil: acpsnap.yml's only.
	Scrub []Scrub
	// Ignore lists request parts of an HTTP agent's model calls that are
	// not part of a request's identity, added to acpsnap.yml's
	// model.ignore: JSON pointers ("/prompt_cache_key") and "header:NAME".
	Ignore []string
	// Redact rewrites one line of stdout or of a session log, on both
	// sides, after the scrub rules: for values a regexp cannot describe.
	// It must be deterministic. nil: nothing.
	Redact func(line []byte) []byte
}

// Scrub is one scrub rule of Params.Scrub.
type Scrub struct {
	Pattern *regexp.Regexp
	Replace string
}

// Run checks every scenario of the corpus at p.Dir: the guards as the
// subtest "guards" (so no scenario should be named guards), then one
// subtest per scenario folder, named after it, in parallel (serially in
// record mode). A failure is a -want +got diff ending in the go test
// command that accepts it. The writing mode comes from the -acpsnap.*
// flags and ACPSNAP_WRITE; Run fails at once on a writing mode in CI.
func Run(t *testing.T, p Params) {
	t.Helper()
	s, err := osSettings()
	if err != nil {
		t.Fatal(err)
	}
	if p.Dir, err = frontend.FindCorpus(p.Dir, "Params.Dir"); err != nil {
		t.Fatalf("acpsnaptest: %v", err)
	}
	safefile.Trust(s.runfiles...) // a corpus given as Bazel data is links
	cfg, err := config(p, s)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Folders.Names) == 0 {
		t.Fatalf("acpsnaptest: %s holds no scenario folder", p.Dir)
	}
	if err := s.shard.honour(); err != nil {
		t.Fatal(err)
	}
	names, err := plan(t, p, s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Acpsnap = MCPProxy(t)
	// The private roots of a scenario that ended cleanly serve the next
	// one, emptied, as in an acpsnap run; removed once every subtest ends.
	cfg.Pool = &harness.RootPool{}
	t.Cleanup(func() { cfg.Pool.Close() })
	declareInputs(cfg.Agent, p.Dir)
	cl := newCommandLine(t.Name(), p.Dir)
	suite := newSuite(t, s, cl, p.Dir)
	t.Cleanup(func() { writeHTML(t, p.Dir, suite) })
	corpusGuards := false
	if s.shard.k <= 1 { // the corpus's guards once, not once per shard
		t.Run(report.GuardsName, func(t *testing.T) {
			t.Helper() // a failure is reported at the user's call of Run
			corpusGuards = true
			suite.add(report.GuardsOutcome(report.GuardsName, guards(t, p.Dir, s.mode, cfg.Folders, nil)))
		})
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			t.Helper() // a failure is reported at the user's call of Run
			if s.mode != check.Record {
				t.Parallel()
			}
			// Without the corpus's guards (another shard's, or filtered
			// out by -run) the scenario checks its own folder first: a
			// stray file must not drive its replay unseen.
			if !corpusGuards {
				if vs := guards(t, p.Dir, s.mode, cfg.Folders, func(n string) bool { return n == name }); len(vs) > 0 {
					suite.add(report.GuardsOutcome(name, vs))
					return
				}
			}
			o := check.Check(t.Context(), filepath.Join(p.Dir, name), cfg)
			suite.add(o)
			if first := suite.changes.Add(o); first != "" {
				o.Reason, o.Diff = report.SameChange(o, first)
				o.Accept = ""
			}
			verdict(t, cl, o, p.SkipUnrecorded)
		})
	}
}

// plan is the scenarios this run checks: the shard's, and for
// record-missing and record-drifted only those the record plan keeps
// (logged before anything is recorded).
func plan(t *testing.T, p Params, s settings, cfg check.Config) ([]string, error) {
	sel := s.shard.selection()
	if s.only != check.RecordAll {
		rc := check.RunConfig{Config: cfg, Root: p.Dir, Selection: sel, Parallel: runtime.NumCPU()}
		pl, err := check.PlanRecord(t.Context(), rc, s.only)
		if err != nil {
			return nil, fmt.Errorf("acpsnaptest: %w", err)
		}
		t.Log(pl)
		sel = pl.Selection(sel)
	}
	names, err := check.RunConfig{Config: cfg, Root: p.Dir, Selection: sel}.Selected()
	if err != nil {
		return nil, fmt.Errorf("acpsnaptest: %w", err)
	}
	return names, nil
}

// config is the check configuration of p in the mode s selects.
func config(p Params, s settings) (check.Config, error) {
	folders, err := check.ReadFolders(p.Dir, nil) // once, for the guards and the subtests
	if err != nil {
		return check.Config{}, fmt.Errorf("acpsnaptest: %w", err)
	}
	corpus := folders.Corpus
	argv := p.Agent
	if argv == nil {
		argv = corpus.Agent.Command
	}
	if len(argv) == 0 {
		return check.Config{}, fmt.Errorf("acpsnaptest: no agent for %s: set agent.command in %s (or Params.Agent)", p.Dir, filepath.Join(p.Dir, scenario.CorpusFile))
	}
	if corpus, err = withRules(corpus, p); err != nil {
		return check.Config{}, err
	}
	cfg := check.Config{Settings: harness.Settings{Agent: argv, Mode: s.mode, StepTimeout: p.Timeout}, ScriptedSecrets: p.ScriptedEnv, Corpus: corpus, Redact: p.Redact, Folders: folders}
	cfg.CI, cfg.DiffColor, cfg.Pending = s.ci, console.IsTerminal(os.Stdout) && os.Getenv("NO_COLOR") == "", s.pending
	if s.mode == check.Record {
		if cfg.Secrets, err = recordSecrets(p, corpus); err != nil {
			return check.Config{}, fmt.Errorf("acpsnaptest: -acpsnap.record: %w", err)
		}
	}
	return cfg, nil
}

// recordSecrets are the variables a record run gives the agent (or, for an
// HTTP agent, the proxy: the key never reaches the agent).
func recordSecrets(p Params, corpus *scenario.Corpus) (map[string]string, error) {
	if p.RecordSecrets != nil {
		return p.RecordSecrets()
	}
	if corpus.Native() {
		return nil, nil
	}
	urlEnv, keyEnvs := check.Upstream(corpus)
	secrets := map[string]string{}
	for _, name := range append([]string{urlEnv}, keyEnvs...) {
		if v := os.Getenv(name); v != "" {
			secrets[name] = v
		}
	}
	if len(secrets) == 0 {
		return nil, fmt.Errorf("record needs the live model: set %s (and %s for another server than the dialect's own)", strings.Join(keyEnvs, " or "), urlEnv)
	}
	return secrets, nil
}

// guards runs the corpus guards over its folders as read (only: those of
// the scenarios it keeps; nil: all), fails t with each violation and
// returns them. A
// scenario not recorded yet is its own subtest's failure, not the
// guards'; in a writing mode the fixtures about to be rewritten in normal
// form may be out of it.
func guards(t *testing.T, dir string, mode check.Mode, folders *check.Folders, only func(string) bool) []check.Violation {
	t.Helper()
	all := func(string) bool { return true }
	vc := check.VerifyConfig{Unrecorded: all, Folders: folders, Only: only}
	if mode.Writes() {
		vc.Rewritten = all
	}
	vs := check.Verify(dir, vc)
	for _, v := range vs {
		t.Error(v)
	}
	return vs
}

// verdict turns one outcome into the subtest's verdict and output.
func verdict(t *testing.T, cl commandLine, o check.Outcome, skipUnrecorded bool) {
	t.Helper()
	if len(o.Wrote) > 0 {
		t.Logf("wrote %s", strings.Join(o.Wrote, ", "))
	}
	for _, n := range o.Notes {
		t.Logf("note: %s", n)
	}
	if len(o.Pending) > 0 {
		t.Logf("pending: %s (review with: %s)", strings.Join(o.Pending, ", "), cl.settle("review"))
	}
	switch o.Status {
	case check.Skipped:
		t.Skip(o.Reason)
	case check.Unrecorded:
		msg := o.Reason
		if o.Accept != "" {
			msg += ": " + cl.accept("record it with", o.Name, o.Accept)
		} else {
			msg += ": an authored scenario renders from its " + scenario.ModelFile + " (docs/format.md): add one, then refresh"
		}
		if skipUnrecorded {
			t.Skip(msg)
		}
		t.Error(msg)
	case check.Failed:
		t.Error(failure(cl, o))
	}
}

// failure is the message of a failed scenario: why, the diff, the
// agent's stderr when it did not run through, and the accept command.
func failure(cl commandLine, o check.Outcome) string {
	var b strings.Builder
	b.WriteString(o.Reason)
	if o.Diff != "" {
		b.WriteString("\ndiff (-want +got):\n" + strings.TrimRight(o.Diff, "\n"))
	}
	if o.Err != nil && o.Stderr != "" {
		b.WriteString("\nagent stderr:\n" + strings.TrimRight(o.Stderr, "\n"))
	}
	if o.Accept != "" {
		b.WriteString("\n" + cl.accept("accept with", o.Name, o.Accept))
	}
	return b.String()
}

// declareInputs opens the agent's executable and every file its arguments
// name, so go test's result cache knows them: a test result is cached
// against the files the test opened, and the agent's reads happen in
// another process. An edit of an agent's script therefore reruns the test;
// files the agent reads on its own are not tracked (use -count=1).
func declareInputs(argv []string, corpus string) {
	abs, _ := filepath.Abs(corpus)
	var paths []string
	for _, a := range argv[1:] {
		paths = append(paths, strings.ReplaceAll(a, "{{corpus}}", abs)) // as the harness fills it
	}
	if exe, err := exec.LookPath(argv[0]); err == nil && (commandsDir == "" || !strings.HasPrefix(exe, commandsDir)) {
		paths = append(paths, exe)
	}
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			if f, err := os.Open(p); err == nil {
				f.Close()
			}
		}
	}
}

// withRules is corpus with the rules of p added after its own.
func withRules(corpus *scenario.Corpus, p Params) (*scenario.Corpus, error) {
	if len(p.Scrub) == 0 && len(p.Ignore) == 0 {
		return corpus, nil
	}
	if len(p.Ignore) > 0 && corpus.Native() {
		return nil, fmt.Errorf("acpsnaptest: Params.Ignore: a native agent talks to its own model; ignore needs an HTTP dialect (model.dialect in %s)", scenario.CorpusFile)
	}
	c := *corpus
	c.Scrub = slices.Clip(c.Scrub)
	for i, r := range p.Scrub {
		if r.Pattern == nil {
			return nil, fmt.Errorf("acpsnaptest: Params.Scrub[%d]: Pattern is nil", i)
		}
		c.Scrub = append(c.Scrub, scenario.NewScrubRule(r.Pattern, r.Replace))
	}
	c.Model.Ignore = append(slices.Clip(c.Model.Ignore), p.Ignore...)
	return &c, nil
}
